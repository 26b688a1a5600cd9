#!/usr/bin/env bash
# Benchmark: the local engine `pipeline serve`. tus PATCH throughput of one
# 1 GiB file sent with `curl -T`, next to litestar-tus (a Python tus server
# from PyPI) on the same machine; and /image/resize images per second on 100
# images of 2400x1600, next to `vipsthumbnail` on the same files.
# See bench/README.md.
#
# Environment:
#   BIG_MIB=1024      size of the PATCH body in MiB (0 skips that part)
#   IMAGES=100        number of images to resize (0 skips that part)
#   FORMAT=jpg        format of the images: jpg or png
#   RUNS=3            runs per command (best time; server peak over all runs)
#   BENCH_DIR=/tmp    where the temporary data folder is made
#   PIPELINE_BIN=...  binary to test; when unset, the release binary is built as
#                     installed (Swift's libraries linked in, .build/static)
#   SWIFT=swift       Swift driver used for that build
#   KEEP=1            keep the data folder instead of removing it
#   STRICT=1          exit 3 when a target is missed (no targets are set yet)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

BIG_MIB=${BIG_MIB:-1024}
IMAGES=${IMAGES:-100}
FORMAT=${FORMAT:-jpg}
RUNS=${RUNS:-3}
WIDTH=2400            # source image size
HEIGHT=1600
BOX_WIDTH=200         # thumbnails fit into this box
BOX_HEIGHT=100
POLL_SECONDS=0.05     # Assembly status poll interval
# -S skips site imports: a smaller measuring process means a lower memory
# floor for the children it measures (see bench/measure.py).
measure=(python3 -S "$repo/bench/measure.py")
tus_python=$repo/.venv-tus/bin/python
tus_server=$repo/Tests/APIClientsTests/Tus/Fixtures/litestar_tus_server.py

for value in "$BIG_MIB" "$IMAGES" "$RUNS"; do
    [[ $value =~ ^[0-9]+$ ]] || { echo "serve.sh: BIG_MIB, IMAGES and RUNS must be whole numbers" >&2; exit 2; }
done
((RUNS >= 1)) || { echo "serve.sh: RUNS must be at least 1" >&2; exit 2; }
[[ $FORMAT == jpg || $FORMAT == png ]] || { echo "serve.sh: FORMAT must be jpg or png" >&2; exit 2; }

command -v curl >/dev/null 2>&1 || { echo "serve.sh: curl is not installed (run scripts/setup.sh)" >&2; exit 2; }
command -v cmp >/dev/null 2>&1 || { echo "serve.sh: cmp is not installed" >&2; exit 2; }
if ((BIG_MIB > 0)); then
    [[ -x $tus_python ]] || { echo "serve.sh: $tus_python is missing (run scripts/setup.sh)" >&2; exit 2; }
fi
if ((IMAGES > 0)); then
    for tool in vips vipsthumbnail vipsheader; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            echo "serve.sh: SKIP the /image/resize part: $tool is not installed" >&2
            echo "serve.sh: install libvips-tools (Debian/Ubuntu: apt-get install libvips-tools;" >&2
            echo "serve.sh: macOS: brew install vips) to run it" >&2
            IMAGES=0
            break
        fi
    done
fi
((BIG_MIB > 0 || IMAGES > 0)) || { echo "serve.sh: nothing to measure (BIG_MIB=0 and IMAGES=0)" >&2; exit 2; }

# ------------------------------------------------- binary and machine facts
script=serve.sh
source "$repo/bench/lib.sh"
find_binary
"$bin" serve --help >/dev/null 2>&1 ||
    { echo "serve.sh: $bin has no 'serve' command (rebuild it)" >&2; exit 2; }
machine_facts
if ((BIG_MIB > 0)); then
    echo "server:  litestar-tus $("$tus_python" -c 'from importlib.metadata import version; print(version("litestar-tus"))' 2>/dev/null || echo '?') ($("$tus_python" --version 2>&1))"
fi
echo "curl:    $(curl --version | head -n1 | cut -d' ' -f1-2)"
if ((IMAGES > 0)); then
    echo "vips:    $(vips --version 2>&1 | head -n1)"
fi

# ------------------------------------------------------------------- data
mkdir -p "${BENCH_DIR:-/tmp}"
work=$(mktemp -d "${BENCH_DIR:-/tmp}/pipeline-serve-bench.XXXXXX")
engine_pid=
tus_pid=
stop_engine() { stop_pid "$engine_pid"; engine_pid=; }
stop_tus() { stop_pid "$tus_pid"; tus_pid=; }
cleanup() {
    stop_engine
    stop_tus
    if [[ ${KEEP:-} == 1 ]]; then
        echo "serve.sh: kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
# Turn signals into an exit, so the EXIT trap stops the servers.
trap 'exit 130' INT
trap 'exit 143' TERM

data=$work/data
out=$work/out
mkdir -p "$data" "$out"

echo
echo "== generating a $BIG_MIB MiB file and $IMAGES $FORMAT images of ${WIDTH}x$HEIGHT in $data"
start=$(date +%s)
if ((BIG_MIB > 0)); then
    "${measure[@]}" gen "$data" --files 0 --big-mib "$BIG_MIB"
fi
images=()
if ((IMAGES > 0)); then
    # One source image (gradients, a checkerboard and noise), copied IMAGES
    # times under distinct names.
    mkdir -p "$data/images"
    "${measure[@]}" gen-png "$work/source.png" --width "$WIDTH" --height "$HEIGHT"
    if [[ $FORMAT == jpg ]]; then
        vips copy "$work/source.png" "$work/source.jpg[Q=90]"
    fi
    for ((i = 1; i <= IMAGES; i++)); do
        printf -v name 'img%05d.%s' "$i" "$FORMAT"
        cp "$work/source.$FORMAT" "$data/images/$name"
        images+=("$data/images/$name")
    done
    echo "source image: $(wc -c <"$work/source.$FORMAT" | tr -d ' ') bytes"
fi
echo "generated in $(($(date +%s) - start)) s"
big_bytes=$((BIG_MIB * 1024 * 1024))

cd "$data"

# Caches cannot be dropped without root, so warm them instead: every client
# then reads the data from the page cache.
echo
echo "== warming the page cache (one read of all data; every command runs warm)"
if ((BIG_MIB > 0)); then
    cat big/big.bin >/dev/null
fi
if ((IMAGES > 0)); then
    cat "${images[@]}" >/dev/null
fi

# ---------------------------------------------------------------- helpers
results=$out/results.tsv
: >"$results"
peaks=()

measure_once() {
    # Each measurement runs in its own measure.py process.
    "${measure[@]}" run --name "$@" | tee -a "$results"
}

# start_engine DATA-DIR: starts `pipeline serve` on a free port; sets
# engine_pid and engine_origin.
start_engine() {
    echo
    echo "== starting pipeline serve on 127.0.0.1 (data: $1)"
    "$bin" serve --host 127.0.0.1 --port 0 --data-dir "$1" --quiet >"$work/engine.out" 2>"$work/engine.err" &
    engine_pid=$!
    local port
    port=$(wait_for_line "$engine_pid" "$work/engine.out" \
        's|^pipeline serve: listening on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "pipeline serve")
    engine_origin=http://127.0.0.1:$port
    echo "origin: $engine_origin (pid $engine_pid)"
}

# start_tus STORE: starts litestar-tus on a free port; sets tus_pid and
# tus_origin.
start_tus() {
    echo
    echo "== starting litestar-tus on 127.0.0.1 (store: $1)"
    "$tus_python" "$tus_server" "$1" >"$work/tus.out" 2>"$work/tus.err" &
    tus_pid=$!
    local port
    port=$(wait_for_line "$tus_pid" "$work/tus.out" 's/^PORT \([0-9][0-9]*\)$/\1/p' "litestar-tus")
    tus_origin=http://127.0.0.1:$port
    echo "origin: $tus_origin (pid $tus_pid)"
}

# peak_mb PID: the process's peak resident set (VmHWM) in MB, or "?".
peak_mb() {
    awk '/^VmHWM:/ { printf "%.1f", $2 * 1024 / 1000000; found = 1 } END { if (!found) print "?" }' \
        "/proc/$1/status" 2>/dev/null || echo "?"
}

b64() { printf %s "$1" | base64 | tr -d '\n'; }

# create_upload ENDPOINT ORIGIN LENGTH NAME: creates an upload with a POST
# and prints its URL (for curl's PATCH).
create_upload() {
    local endpoint=$1 origin=$2 location
    location=$(curl -sS -f -D - -o /dev/null -X POST \
        -H 'Tus-Resumable: 1.0.0' \
        -H "Upload-Length: $3" \
        -H "Upload-Metadata: filename $(b64 "$(basename "$4")"),filetype $(b64 application/octet-stream)" \
        "$endpoint" | tr -d '\r' | sed -n 's/^[Ll][Oo][Cc][Aa][Tt][Ii][Oo][Nn]: *//p')
    [[ -n $location ]] || { echo "serve.sh: the creation POST to $endpoint returned no Location" >&2; exit 1; }
    case $location in
        http://* | https://*) echo "$location" ;;
        /*) echo "$origin$location" ;;
        *) echo "$endpoint$location" ;;
    esac
}

# patch_once NAME URL: the timed part, one PATCH with the whole file.
patch_once() {
    measure_once "$1" -- curl -sS -f -o /dev/null -X PATCH -T big/big.bin \
        -H 'Tus-Resumable: 1.0.0' -H 'Upload-Offset: 0' \
        -H 'Content-Type: application/offset+octet-stream' "$2"
}

# check_stored WHO STORE COPY FIRST: STORE holds one complete upload; on the
# first run, COPY (its data file) equals the source byte for byte.
check_stored() {
    "${measure[@]}" stored "$2" --count 1 --size "$big_bytes" >/dev/null ||
        { echo "serve.sh: FAIL: the upload in $1's store is wrong (see above)" >&2; exit 1; }
    if [[ $4 == 1 ]]; then
        cmp "$3" big/big.bin ||
            { echo "serve.sh: FAIL: $1 stored a different file (see above)" >&2; exit 1; }
        echo "verified: $1 stored a byte-identical copy of big/big.bin at ${3#"$work"/}"
    fi
}

clear_dir() {
    find "$1" -mindepth 1 -delete
}

# check_thumbnail WHO FILE: FILE fits the box and touches it on one side.
check_thumbnail() {
    local w h
    w=$(vipsheader -f width "$2") && h=$(vipsheader -f height "$2") ||
        { echo "serve.sh: FAIL: $1 wrote an unreadable thumbnail $2" >&2; exit 1; }
    if ! { ((w == BOX_WIDTH && h <= BOX_HEIGHT)) || ((h == BOX_HEIGHT && w <= BOX_WIDTH)); }; then
        echo "serve.sh: FAIL: $1 made a ${w}x$h thumbnail, expected one that fits ${BOX_WIDTH}x$BOX_HEIGHT" >&2
        exit 1
    fi
    echo "verified: $1 made ${w}x$h thumbnails ($(basename "$2"))"
}

# ------------------------------------------------- part 1: tus PATCH
if ((BIG_MIB > 0)); then
    engine_data=$work/engine-tus
    tus_store=$work/tus-store
    mkdir -p "$engine_data" "$tus_store"
    start_engine "$engine_data"
    start_tus "$tus_store"
    engine_uploads=$engine_data/uploads

    echo
    echo "== tus PATCH of big/big.bin ($RUNS runs each; name, seconds, client peak MB, floor)"
    for ((run = 1; run <= RUNS; run++)); do
        # The stores are emptied before every run, so only one copy of the
        # big file is on disk at a time.
        clear_dir "$engine_uploads"
        url=$(create_upload "$engine_origin/resumable/files/" "$engine_origin" "$big_bytes" big/big.bin)
        patch_once tus-engine "$url"
        check_stored "pipeline serve" "$engine_uploads" "$engine_uploads/${url##*/}.bin" "$run"
        clear_dir "$engine_uploads"

        clear_dir "$tus_store"
        url=$(create_upload "$tus_origin/files/" "$tus_origin" "$big_bytes" big/big.bin)
        patch_once tus-litestar "$url"
        check_stored "litestar-tus" "$tus_store" "$tus_store/${url##*/}" "$run"
        clear_dir "$tus_store"
    done
    # Both servers live through all runs, so the per-run peak is their
    # high-water mark.
    peaks+=(--peak "tus-engine=$(peak_mb "$engine_pid")" --peak "tus-litestar=$(peak_mb "$tus_pid")")
    stop_engine
    stop_tus
fi

# ------------------------------------------- part 2: /image/resize
if ((IMAGES > 0)); then
    engine_data=$work/engine-images
    thumbs=$out/thumbs
    mkdir -p "$engine_data" "$thumbs"
    start_engine "$engine_data"
    params=$(printf '{"steps":{"thumb":{"robot":"/image/resize","use":":original","width":%d,"height":%d,"resize_strategy":"fit"}}}' \
        "$BOX_WIDTH" "$BOX_HEIGHT")

    echo
    echo "== resizing $IMAGES images to fit ${BOX_WIDTH}x$BOX_HEIGHT ($RUNS runs each; name, seconds, peak MB, floor)"
    vips_tsv=$out/vipsthumbnail.tsv
    : >"$vips_tsv"
    for ((run = 1; run <= RUNS; run++)); do
        clear_dir "$thumbs"
        "${measure[@]}" run --name resize-vipsthumbnail -- vipsthumbnail --size "${BOX_WIDTH}x$BOX_HEIGHT" \
            -o "$thumbs/%s_thumb.$FORMAT" "${images[@]}" | tee -a "$results" "$vips_tsv"
        made=$(find "$thumbs" -type f -name "*_thumb.$FORMAT" | wc -l | tr -d ' ')
        ((made == IMAGES)) ||
            { echo "serve.sh: FAIL: vipsthumbnail wrote $made thumbnails, expected $IMAGES" >&2; exit 1; }
        if ((run == 1)); then check_thumbnail vipsthumbnail "$thumbs/img00001_thumb.$FORMAT"; fi
        clear_dir "$thumbs"

        # From the POST (the upload over loopback included) to
        # ASSEMBLY_COMPLETED; checks that results.thumb lists IMAGES files.
        "${measure[@]}" assembly "$engine_origin" --params "$params" --step thumb --expect "$IMAGES" \
            --name resize-engine --interval "$POLL_SECONDS" "${images[@]}" | tee -a "$results"
        if ((run == 1)); then
            first=$(find "$engine_data/results" -type f -name "*.$FORMAT" -print -quit)
            [[ -n $first ]] || { echo "serve.sh: FAIL: pipeline serve left no thumbnail in $engine_data/results" >&2; exit 1; }
            check_thumbnail "pipeline serve" "$first"
        fi
        # Drop this Assembly's uploads and results; its record stays.
        rm -rf "$engine_data"/results/* "$engine_data"/assemblies/*/
    done
    peaks+=(--peak "resize-engine=$(peak_mb "$engine_pid")")
    # vipsthumbnail's own peak (largest over the runs) and the measuring floor.
    peaks+=(--peak "resize-vipsthumbnail=$(awk -F'\t' '$3 > p { p = $3 } $4 > f { f = $4 } END { printf "%.1f/%.1f", p, f }' "$vips_tsv")")
    stop_engine
fi

# ----------------------------------------------------------------- report
echo
echo "== results"
"${measure[@]}" serve-report "$results" --big-mib "$BIG_MIB" --images "$IMAGES" --format "$FORMAT" \
    --size "${WIDTH}x$HEIGHT" --box "${BOX_WIDTH}x$BOX_HEIGHT" ${peaks[@]+"${peaks[@]}"}
