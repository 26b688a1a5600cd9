#!/usr/bin/env bash
# The install step of action.yml: puts pipeline in /usr/bin with apt-get, from
#   PIPELINE_DEB_URL     a release's .deb by URL or path; empty builds this checkout (`make dist`)
#   PIPELINE_DEB_SHA256  the SHA-256 the downloaded .deb must have (optional)
#   PIPELINE_ENGINE_TOOLS true (default) also installs the .deb's Recommends, the engine's tools
# and writes `version=…` to $GITHUB_OUTPUT. Needs a Debian or Ubuntu runner with apt-get (and sudo
# when not root).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
url="${PIPELINE_DEB_URL:-}"
sum="${PIPELINE_DEB_SHA256:-}"
work="${RUNNER_TEMP:-/tmp}/pipeline-install"
sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
command -v apt-get >/dev/null || { echo "::error::pipeline installs with apt-get; this runner has none"; exit 1; }
mkdir -p "$work"

case "$url" in
"")
    echo "pipeline: no deb-url: building $here with make dist"
    make -C "$here" dist
    deb="$(ls "$here"/dist/pipeline_*.deb | tail -1)"
    ;;
http://* | https://*)
    deb="$work/$(basename "${url%%\?*}")"
    [[ "$deb" == *.deb ]] || deb="$work/pipeline.deb"
    echo "pipeline: downloading $url"
    curl --fail --location --silent --show-error --retry 3 --output "$deb" "$url"
    ;;
*)
    deb="$(cd "$(dirname "$url")" && pwd)/$(basename "$url")"
    ;;
esac
if [ -n "$sum" ]; then
    echo "$sum  $deb" | sha256sum --check --strict -
fi

recommends=(--no-install-recommends)
if [ "${PIPELINE_ENGINE_TOOLS:-true}" = true ]; then recommends=(--install-recommends); fi
"${sudo[@]}" apt-get update -qq
# A path with a slash makes apt-get install the file, and its Depends from the archive.
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${recommends[@]}" "$deb"

command -v pipeline >/dev/null || { echo "::error::pipeline is not on PATH after installing $deb"; exit 1; }
version="$(pipeline --version | awk 'NR == 1 {print $NF}')"
echo "pipeline: installed $(command -v pipeline), version $version"
if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "version=$version" >>"$GITHUB_OUTPUT"; fi
