#!/usr/bin/env bash
# Benchmark: how long `pipeline serve` takes to answer the PATCH that brings an upload's last
# bytes, for an upload tied to an Assembly (named in its `assembly_url` metadata) against a bare
# tus upload of the same file, for a video (ffprobe reads its facts) and an image (libvips
# does). The tied answer should cost little more than the bare one: the facts are read when
# the Assembly executes, not inside that PATCH. See bench/README.md.
#
# Environment:
#   UPLOADS=20        uploads per kind and file (the median is printed)
#   BENCH_DIR=/tmp    where the temporary data folder is made
#   PIPELINE_BIN=...  binary to test; when unset, the release binary is built as installed
#   KEEP=1            keep the data folder instead of removing it
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
script=bench/tied.sh
UPLOADS=${UPLOADS:-20}
source bench/lib.sh
for tool in curl ffmpeg python3; do
    command -v "$tool" >/dev/null || { echo "$script: $tool is missing (run scripts/setup.sh)" >&2; exit 2; }
done
find_binary
measure=(python3 "$repo/bench/measure.py")
make_work tied
machine_facts "$bin"

ffmpeg -nostdin -loglevel error -y -f lavfi -i testsrc=size=320x180:rate=25 -t 2 -c:v libx264 -pix_fmt yuv420p "$work/clip.mp4"
ffmpeg -nostdin -loglevel error -y -f lavfi -i testsrc=size=1200x800 -frames:v 1 -update 1 "$work/photo.jpg"
start_engine "$work/engine"
origin=http://127.0.0.1:$port
echo "engine:  $origin (pid $engine_pid)"

b64() { printf %s "$1" | base64 -w0; }

# last_patch FILE TIED: seconds the one PATCH of FILE's upload took, curl's time_total.
last_patch() {
    local file=$1 tied=$2 size meta status url location
    size=$(stat -c %s "$file")
    meta="filename $(b64 "$(basename "$file")")"
    if [[ $tied == tied ]]; then
        status=$(curl -sf -X POST "$origin/assemblies" --data-urlencode 'params={"steps":{"hash":{"robot":"/file/hash","use":":original"}}}' \
            --data-urlencode tus_num_expected_upload_files=1)
        url=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["assembly_url"])' "$status")
        meta="$meta,fieldname $(b64 file),assembly_url $(b64 "$url")"
    fi
    location=$(curl -sf -D - -o /dev/null -X POST "$origin/resumable/files/" -H 'Tus-Resumable: 1.0.0' \
        -H "Upload-Length: $size" -H "Upload-Metadata: $meta" | tr -d '\r' | awk -F': ' 'tolower($1) == "location" { print $2 }')
    [[ $location == http* ]] || location=$origin$location
    curl -sf -o /dev/null -w '%{time_total}\n' -X PATCH "$location" -H 'Tus-Resumable: 1.0.0' -H 'Upload-Offset: 0' \
        -H 'Content-Type: application/offset+octet-stream' --data-binary @"$file"
}

median() { sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m * 1000 }'; }

echo
echo "== the last PATCH, median of $UPLOADS (ms): tied to an Assembly, bare, ratio"
for file in "$work/clip.mp4" "$work/photo.jpg"; do
    tied=$(for ((i = 0; i < UPLOADS; i++)); do last_patch "$file" tied; done | median)
    bare=$(for ((i = 0; i < UPLOADS; i++)); do last_patch "$file" bare; done | median)
    printf '%-10s tied %6s  bare %6s  %sx\n' "$(basename "$file")" "$tied" "$bare" "$(awk -v t="$tied" -v b="$bare" 'BEGIN { printf "%.2f", t / b }')"
done
