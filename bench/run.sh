#!/usr/bin/env bash
# Benchmark: `pipeline run` end to end against the local engine. 1,000 small
# PNGs resized in Assemblies of 100, next to the official Python SDK
# (pytransloadit) creating the same Assemblies; and one 1 GiB file through a
# /file/hash step, next to `pipeline upload` of the same file alone (the
# API's overhead). One `pipeline serve` on 127.0.0.1 serves every case.
# See bench/README.md.
#
# The images are also run one per Assembly, and resized by hand with
# vipsthumbnail and ImageMagick's mogrify (where installed) on one process per
# core: the engine's own overhead is what run costs beyond them. The same
# Assemblies also go through a /file/filter step that keeps every file: the CPU
# a run spends besides resizing (client and engine, counted apart), and so the
# best ratio to the fastest tool the machine's cores leave room for.
#
# Environment:
#   IMAGES=1000       number of 256x256 PNGs (0 skips that case)
#   BIG_MIB=1024      size of the big file in MiB (0 skips that case)
#   RUNS=3            runs per command (best time, largest peak memory)
#   BENCH_DIR=/tmp    where the temporary data folder is made
#   PIPELINE_BIN=...  binary to test; when unset, the release binary is built as
#                     installed (Swift's libraries linked in, .build/static)
#   SWIFT=swift       Swift driver used for that build
#   KEEP=1            keep the data folder instead of removing it
#   STRICT=1          exit 3 when a target is missed
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

IMAGES=${IMAGES:-1000}
BIG_MIB=${BIG_MIB:-1024}
RUNS=${RUNS:-3}
IMAGE_SIZE=256        # source images are IMAGE_SIZE x IMAGE_SIZE
BOX=64                # thumbnails fit into BOX x BOX
BATCH=100             # files per Assembly, for pipeline run and the SDK
CONCURRENCY=4         # pipeline run --concurrency
# -S skips site imports: a smaller measuring process means a lower memory
# floor for the children it measures (see bench/measure.py).
measure=(python3 -S "$repo/bench/measure.py")
sdk_python=$repo/.venv/bin/python

for value in "$IMAGES" "$BIG_MIB" "$RUNS"; do
    [[ $value =~ ^[0-9]+$ ]] || { echo "run.sh: IMAGES, BIG_MIB and RUNS must be whole numbers" >&2; exit 2; }
done
((RUNS >= 1)) || { echo "run.sh: RUNS must be at least 1" >&2; exit 2; }
((IMAGES > 0 || BIG_MIB > 0)) || { echo "run.sh: nothing to measure (IMAGES=0 and BIG_MIB=0)" >&2; exit 2; }

if ((IMAGES > 0)); then
    [[ -x $sdk_python ]] || { echo "run.sh: $sdk_python is missing (run scripts/setup.sh)" >&2; exit 2; }
    "$sdk_python" -c 'from transloadit import client' 2>/dev/null ||
        { echo "run.sh: pytransloadit is not installed in .venv (run scripts/setup.sh)" >&2; exit 2; }
fi

# ------------------------------------------------- binary and machine facts
script=run.sh
source "$repo/bench/lib.sh"
find_binary
for command in run serve upload; do
    "$bin" "$command" --help >/dev/null 2>&1 ||
        { echo "run.sh: $bin has no '$command' command (rebuild it)" >&2; exit 2; }
done
machine_facts
if ((IMAGES > 0)); then
    echo "sdk:     pytransloadit $("$sdk_python" -c 'from importlib.metadata import version; print(version("pytransloadit"))' 2>/dev/null || echo '?') ($("$sdk_python" --version 2>&1))"
fi

# ------------------------------------------------------------------- data
mkdir -p "${BENCH_DIR:-/tmp}"
work=$(mktemp -d "${BENCH_DIR:-/tmp}/pipeline-run-bench.XXXXXX")
engine_pid=
stop_engine() { stop_pid "$engine_pid"; engine_pid=; }
cleanup() {
    stop_engine
    if [[ ${KEEP:-} == 1 ]]; then
        echo "run.sh: kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
# Turn signals into an exit, so the EXIT trap stops the engine.
trap 'exit 130' INT
trap 'exit 143' TERM

data=$work/data
out=$work/out
engine_data=$work/engine
state=$work/state
mkdir -p "$data" "$out" "$engine_data" "$state"

echo
echo "== generating $IMAGES PNGs of ${IMAGE_SIZE}x$IMAGE_SIZE and a $BIG_MIB MiB file in $data"
start=$(date +%s)
images=()
if ((IMAGES > 0)); then
    "${measure[@]}" gen-pngs "$data/images" --count "$IMAGES" --size "$IMAGE_SIZE"
    images=("$data"/images/*.png)
    echo "images: $(du -sk "$data/images" | cut -f1) KiB in all, $(wc -c <"${images[0]}" | tr -d ' ') bytes each"
fi
if ((BIG_MIB > 0)); then
    "${measure[@]}" gen "$data" --files 0 --big-mib "$BIG_MIB"
fi
echo "generated in $(($(date +%s) - start)) s"
big_bytes=$((BIG_MIB * 1024 * 1024))

# The SDK side: one process, one client, one Assembly per batch, the batches
# one after another; the SDK uploads each file of an Assembly with tus, one
# after another, and polls the status every second.
cat >"$work/sdk_run.py" <<'PY'
"""sdk_run.py ORIGIN BATCH BOX EXPECT FILE...: with pytransloadit, create one
Assembly per BATCH files (in the order given) that resizes each file to fit
BOX x BOX, wait for each before the next, and check that every Assembly
completes and that the thumb results add up to EXPECT. Exits 1 otherwise."""
import sys

from transloadit import client

origin, batch, box, expect = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
paths = sys.argv[5:]
# pipeline serve runs without --auth-key, so the signature is not checked.
tl = client.Transloadit("bench-key", "unused-secret", service=origin)
total = 0
for first in range(0, len(paths), batch):
    chunk = paths[first:first + batch]
    assembly = tl.new_assembly()
    assembly.add_step("thumb", "/image/resize",
                      {"use": ":original", "width": box, "height": box, "resize_strategy": "fit"})
    streams = [open(path, "rb") for path in chunk]
    try:
        for stream in streams:
            assembly.add_file(stream)
        response = assembly.create(wait=True, resumable=True)
    finally:
        for stream in streams:
            stream.close()
    status = response.data
    label = f"sdk_run.py: Assembly {first // batch + 1} ({status.get('assembly_id')})"
    if status.get("ok") != "ASSEMBLY_COMPLETED":
        sys.exit(f"{label}: {status.get('ok') or status.get('error')}: {status.get('message', '')}")
    thumbs = (status.get("results") or {}).get("thumb") or []
    if len(thumbs) != len(chunk):
        sys.exit(f"{label}: results.thumb lists {len(thumbs)} files, expected {len(chunk)}")
    total += len(thumbs)
if total != expect:
    sys.exit(f"sdk_run.py: {total} thumbnails in all, expected {expect}")
PY

cores=$(nproc 2>/dev/null || echo 2)

# ----------------------------------------------------------------- engine
echo
echo "== starting pipeline serve on 127.0.0.1 (data: $engine_data)"
"$bin" serve --host 127.0.0.1 --port 0 --data-dir "$engine_data" --quiet >"$work/engine.out" 2>"$work/engine.err" &
engine_pid=$!
port=$(wait_for_line "$engine_pid" "$work/engine.out" 's|^pipeline serve: listening on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "pipeline serve")
origin=http://127.0.0.1:$port
echo "origin: $origin (pid $engine_pid)"

# ------------------------------------------------------------- manifests
cat >"$data/images.yml" <<YAML
version: 1
name: bench
endpoint: $origin
auth: {key: bench-key}
results: results.json
assemblies:
  thumbs:
    inputs: ["images/*.png"]
    batch: $BATCH
    steps:
      thumb: {robot: /image/resize, use: ":original", width: $BOX, height: $BOX, resize_strategy: fit}
YAML
sed 's/^    batch: .*/    batch: 1/' "$data/images.yml" >"$data/images-one.yml"
# The same Assemblies on the embedded engine (endpoint: local): in the run's own process, no
# port, each file read where it is.
sed -e 's|^endpoint: .*|endpoint: local|' -e '/^auth:/d' "$data/images.yml" >"$data/images-local.yml"
sed 's/^    batch: .*/    batch: 1/' "$data/images-local.yml" >"$data/images-local-one.yml"
# The same files and Assemblies with no image work (a filter that keeps every file): what a run
# costs besides resizing, the part no image tool has to pay.
sed 's|^      thumb: .*|      thumb: {robot: /file/filter, use: ":original", accepts: [["${file.size}", ">", "0"]]}|' \
    "$data/images.yml" >"$data/images-filter.yml"
cat >"$data/big.yml" <<YAML
version: 1
name: bench-big
endpoint: $origin
auth: {key: bench-key}
results: big-results.json
assemblies:
  big:
    inputs: [big/*.bin]
    steps:
      hash: {robot: /file/hash, use: ":original", algorithm: sha256}
YAML

cd "$data"

# Caches cannot be dropped without root, so warm them instead: every client
# then reads the data from the page cache.
echo
echo "== warming the page cache (one read of all data; every command runs warm)"
if ((IMAGES > 0)); then
    cat "${images[@]}" >/dev/null
fi
if ((BIG_MIB > 0)); then
    cat big/big.bin >/dev/null
fi

# ---------------------------------------------------------------- helpers
results=$out/results.tsv
cpu=$out/cpu.tsv
: >"$results"
: >"$cpu"

# measure_once NAME CMD...: one measurement in its own measure.py process.
# The command's stderr (pipeline run's progress lines) goes to a log that is
# shown only when the command fails.
# Each measurement's CPU seconds also go to $cpu: the command's with its children (this shell's
# children's times, read before and after) and the engine's (its own times).
measure_once() {
    local name=$1 log=$out/$1.log
    shift
    local client_before engine_before
    client_before=$(children_ticks) engine_before=$(engine_ticks)
    if ! "${measure[@]}" run --name "$name" -- "$@" 2>"$log" | tee -a "$results"; then
        cat "$log" >&2
        echo "run.sh: FAIL: $name failed (see above)" >&2
        exit 1
    fi
    printf '%s\t%s\t%s\n' "$name" $(($(children_ticks) - client_before)) $(($(engine_ticks) - engine_before)) >>"$cpu"
}

# CPU time in clock ticks: this shell's waited-for children (cutime + cstime), and the engine's
# (utime + stime). The command name in /proc/PID/stat may hold spaces; fields are counted after it.
children_ticks() { awk '{ sub(/.*\) /, ""); print $14 + $15 }' "/proc/$$/stat"; }
engine_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$engine_pid/stat" 2>/dev/null || echo 0; }

# Empties the engine's data folder (uploads, Assemblies, results) but keeps
# its top-level folders; the engine is idle between commands. What was there
# is moved aside, not deleted, until the script ends: ext4 makes files
# created within seconds of a mass delete slow to allocate (it skips inodes
# freed in the last 30 s), which would charge the next command for this
# script's own clean-up.
cleared=0
clear_engine() {
    cleared=$((cleared + 1))
    local aside=$work/cleared/$cleared
    local folder
    mkdir -p "$aside"
    for folder in "$engine_data"/*/; do
        folder=${folder%/}
        mkdir -p "$aside/${folder##*/}"
        find "$folder" -mindepth 1 -maxdepth 1 -exec mv -t "$aside/${folder##*/}" {} +
    done
}

# pipeline_run MANIFEST RESULTS NAME: a fresh run (no state, no previous
# results, --force) of MANIFEST. pipeline serve ignores the signature, but
# pipeline run signs, so it needs some secret.
pipeline_run() {
    # Moved aside, as clear_engine does: the embedded engine's data is in .pipeline/.
    cleared=$((cleared + 1))
    [[ -d .pipeline ]] && mkdir -p "$work/cleared/$cleared" && mv .pipeline "$work/cleared/$cleared/"
    rm -f "$2"
    measure_once "$3" env TRANSLOADIT_SECRET=bench-unused-secret \
        "$bin" run "$1" --force --concurrency "$CONCURRENCY"
}

# check_results FIRST RESULTS ARG...: measure.py check-results; it prints
# what it verified on the first run only.
check_results() {
    local first=$1
    shift
    if [[ $first == 1 ]]; then
        "${measure[@]}" check-results "$@"
    else
        "${measure[@]}" check-results "$@" >/dev/null
    fi || { echo "run.sh: FAIL: the results of pipeline run are wrong (see above)" >&2; exit 1; }
}

echo
echo "== measuring ($RUNS runs each; name, seconds, client peak MB, floor)"
for ((run = 1; run <= RUNS; run++)); do
    if ((IMAGES > 0)); then
        clear_engine
        pipeline_run images.yml results.json images-run
        check_results "$run" results.json --step thumb --expect "$IMAGES"

        clear_engine
        pipeline_run images-filter.yml results.json images-run-filter
        check_results "$run" results.json --step thumb --expect "$IMAGES"

        clear_engine
        pipeline_run images-one.yml results.json images-run-one
        check_results "$run" results.json --step thumb --expect "$IMAGES"

        # The embedded engine keeps its data in .pipeline/ beside the manifest, which each run starts without.
        pipeline_run images-local.yml results.json images-local
        check_results "$run" results.json --step thumb --expect "$IMAGES"
        pipeline_run images-local-one.yml results.json images-local-one
        check_results "$run" results.json --step thumb --expect "$IMAGES"

        # The same resize by hand, on as many processes as the machine has cores, each given
        # its share of the files: what the engine's own overhead is measured against.
        thumbs=$work/thumbs.$run
        per_process=$(((IMAGES + cores - 1) / cores))
        if command -v vipsthumbnail >/dev/null 2>&1; then
            mkdir -p "$thumbs/vips"
            measure_once images-vipsthumbnail bash -c 'printf "%s\0" images/*.png | xargs -0 -P "$1" -n "$2" vipsthumbnail --size "$3x$3" -o "$4/%s.png"' \
                _ "$cores" "$per_process" "$BOX" "$thumbs/vips"
            [[ $(find "$thumbs/vips" -type f | wc -l) == "$IMAGES" ]] || { echo "run.sh: FAIL: vipsthumbnail made too few thumbnails" >&2; exit 1; }
        fi
        if command -v mogrify >/dev/null 2>&1; then
            mkdir -p "$thumbs/mogrify"
            measure_once images-mogrify bash -c 'printf "%s\0" images/*.png | xargs -0 -P "$1" -n "$2" mogrify -path "$4" -thumbnail "$3x$3" -format png' \
                _ "$cores" "$per_process" "$BOX" "$thumbs/mogrify"
            [[ $(find "$thumbs/mogrify" -type f | wc -l) == "$IMAGES" ]] || { echo "run.sh: FAIL: mogrify made too few thumbnails" >&2; exit 1; }
        fi

        clear_engine
        measure_once images-sdk "$sdk_python" "$work/sdk_run.py" "$origin" "$BATCH" "$BOX" "$IMAGES" "${images[@]}"
        if ((run == 1)); then
            echo "verified: the SDK's Assemblies of up to $BATCH files completed with $IMAGES thumbnails in all"
        fi
    fi
    if ((BIG_MIB > 0)); then
        clear_engine
        pipeline_run big.yml big-results.json big-run
        if ((run == 1)); then
            check_results 1 big-results.json --step hash --expect 1 --source big/big.bin
        else
            check_results "$run" big-results.json --step hash --expect 1
        fi

        clear_engine
        rm -rf "$state/big-upload"
        measure_once big-upload "$bin" upload big/big.bin --endpoint "$origin/resumable/files/" \
            --checksum auto --quiet --state-dir "$state/big-upload"
        "${measure[@]}" stored "$engine_data/uploads" --count 1 --size "$big_bytes" >/dev/null ||
            { echo "run.sh: FAIL: the engine does not hold the uploaded file (see above)" >&2; exit 1; }
        if ((run == 1)); then
            echo "verified: pipeline serve holds one complete upload of $big_bytes bytes"
        fi
    fi
done
clear_engine
rm -rf .pipeline results.json big-results.json

# The engine lives through all cases and runs, so this is its high-water mark.
engine_peak=$(awk '/^VmHWM:/ { printf "%.1f", $2 * 1024 / 1000000; found = 1 } END { if (!found) print "?" }' \
    "/proc/$engine_pid/status" 2>/dev/null || echo "?")
stop_engine

# ----------------------------------------------------------------- report
echo
echo "== results"
"${measure[@]}" run-report "$results" --cpu "$cpu" --cores "$cores" --images "$IMAGES" --image-size "$IMAGE_SIZE" --box "$BOX" \
    --batch "$BATCH" --big-mib "$BIG_MIB" --concurrency "$CONCURRENCY" --engine-peak "$engine_peak"
