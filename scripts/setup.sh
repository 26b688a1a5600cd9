#!/usr/bin/env bash
# Installs everything pipeline needs to build and test: Debian packages and a
# Python virtual environment with the independent test peers. Idempotent: when
# everything is present it returns in well under a second.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(pkgconf libyaml-dev libssl-dev)
PYTHON_PEERS=(check-jsonschema==0.39.0)
VENV=".venv"

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

stamp="$VENV/.peers"
wanted="${PYTHON_PEERS[*]}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
    echo "setup: creating $VENV with ${PYTHON_PEERS[*]}"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PYTHON_PEERS[@]}"
    echo "$wanted" > "$stamp"
fi
