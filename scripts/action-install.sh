#!/usr/bin/env bash
# The install step of action.yml: puts pipeline in /usr/bin with apt-get, from
#   PIPELINE_DEB_URL     a release's .deb by URL or path; empty builds this checkout (`make dist`)
#   PIPELINE_DEB_SHA256  the SHA-256 the downloaded .deb must have: exactly 64 hexadecimal digits
#                        (optional for https:// and paths; required for http://)
#   PIPELINE_ENGINE_TOOLS true (default) also installs the .deb's Recommends, the engine's tools
# and writes `version=…` to $GITHUB_OUTPUT. Needs a Debian or Ubuntu runner with apt-get (and sudo
# when not root).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
url="${PIPELINE_DEB_URL:-}"
sum="${PIPELINE_DEB_SHA256:-}"
# What messages may show of the inputs: printable characters only (a new line would start a workflow command).
shown_url="${url//[^[:print:]]/?}"
scheme="$(printf '%s' "${url%%://*}" | tr '[:upper:]' '[:lower:]')"
[[ "$url" == *://* ]] || scheme=""
sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
command -v apt-get >/dev/null || { echo "::error::pipeline installs with apt-get; this runner has none"; exit 1; }
# The digest is one value, checked before anything is fetched: text with a new line or a '#'
# would otherwise be read by sha256sum as a list naming any other file.
if [ -n "$sum" ] && ! [[ "$sum" =~ ^[0-9a-fA-F]{64}$ ]]; then
    echo "::error::sha256 must be exactly 64 hexadecimal digits (the .deb's line in the release's SHA256SUMS), not '${sum//[^[:print:]]/?}'"
    exit 1
fi
case "$scheme" in
"" | http | https) ;;
*)
    echo "::error::deb-url must be an http:// or https:// URL or a path on the runner, not '$shown_url'"
    exit 1
    ;;
esac
case "$scheme" in
http)
    if [ -z "$sum" ]; then
        echo "::error::deb-url is plain http://, which anyone on the way can change: give its sha256, or an https:// URL"
        exit 1
    fi
    ;;
esac
# A folder of this run's own: a fixed name in a shared /tmp could be someone else's, with a link
# where the download goes or a .deb swapped in between its check and its install.
work="$(mktemp -d "${RUNNER_TEMP:-/tmp}/pipeline-install.XXXXXX")"
trap 'rm -rf "$work"' EXIT

case "$url" in
"")
    echo "pipeline: no deb-url: building $here with make dist"
    make -C "$here" dist
    deb="$(ls "$here"/dist/pipeline_*.deb | tail -1)"
    ;;
*)
    if [ -n "$scheme" ]; then
        deb="$work/pipeline.deb"
        echo "pipeline: downloading $shown_url"
        # Redirects may only go to https: an https URL is never downgraded on the way.
        redirects=(--proto-redir =https)
        [ "$scheme" = http ] && redirects=(--proto-redir =http,https)
        curl --fail --location --silent --show-error --retry 3 --proto =http,https "${redirects[@]}" --output "$deb" "$url"
    else
        [ -f "$url" ] || { echo "::error::deb-url '$shown_url' is neither an http(s) URL nor a file on the runner"; exit 1; }
        # Copied into the folder of this run's own, so what is checked is what is installed.
        deb="$work/pipeline.deb"
        cp -- "$url" "$deb"
    fi
    ;;
esac
if [ -n "$sum" ]; then
    actual="$(sha256sum "$deb" | cut -d' ' -f1)"
    if [ "$actual" != "${sum,,}" ]; then
        echo "::error::$deb has SHA-256 $actual, not the $sum given; not installed"
        exit 1
    fi
    echo "pipeline: $deb has the SHA-256 given"
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
