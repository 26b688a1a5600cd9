#!/usr/bin/env bash
# Benchmark: what `pipeline run` redoes after a small change, on the embedded engine
# (`endpoint: local`), for two binaries on the same trees: BASE_BIN (caching per Assembly) and
# the binary under test. A job of IMAGES images (PNG and JPEG) in Assemblies of BATCH, with
# three /image/resize steps (w100, w200, w300). Each scenario starts from a fresh copy of the
# same project for each binary, runs it once (cold), then:
#   1. w200's width 200 -> 250, run again;
#   2. a fourth step (w150), run again;
#   3. 10% of the images renamed (same bytes; half in place, half moved to another folder);
#   4. the whole project (sources, .pipeline/, results.json, downloads) copied to another
#      absolute path and the original removed (a fresh CI runner with its cache restored), run
#      there as it is, with w200 changed, and without the download folder;
#   5. CHURN_RUNS runs with changes (in turn: one step's width flipped between two values, then
#      5 images touched and 2 given new bytes), then the size of .pipeline/.
# For each run: wall seconds; the Assembly records (.pipeline/engine/assemblies/*.json) and
# result files (under .pipeline/engine/results/) newer than a marker touched just before the
# run, new ones and rewritten ones apart; the download folder's file count; the exit status.
# A failed run is printed as FAILED with the end of its standard error, and a run that
# warned with its first warning. See bench/README.md.
#
# Environment:
#   BASE_BIN=/tmp/pipeline-base/.build/release/pipeline   the binary to compare against
#   PIPELINE_BIN=...  binary to test; when unset, the release binary is built as installed
#   IMAGES=150        images (320x240; every other one JPEG when vipsthumbnail is installed)
#   BATCH=10          images per Assembly
#   CHURN_RUNS=20     runs of scenario 5
#   SCENARIOS="1 2 3 4 5"   which scenarios to run
#   BENCH_DIR=/tmp    where the temporary folder is made; KEEP=1 keeps it
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
script=cache.sh
BASE_BIN=${BASE_BIN:-/tmp/pipeline-base/.build/release/pipeline}
IMAGES=${IMAGES:-150}
BATCH=${BATCH:-10}
CHURN_RUNS=${CHURN_RUNS:-20}
SCENARIOS=${SCENARIOS:-1 2 3 4 5}
WIDTH=320 HEIGHT=240  # source images; every step narrows them
helper=(python3 "$repo/bench/cache.py")
# shellcheck source=bench/lib.sh
source "$repo/bench/lib.sh"

for value in "$IMAGES" "$BATCH" "$CHURN_RUNS"; do
    [[ $value =~ ^[1-9][0-9]*$ ]] || { echo "$script: IMAGES, BATCH and CHURN_RUNS must be whole numbers above 0" >&2; exit 2; }
done
((IMAGES >= 10)) || { echo "$script: IMAGES must be at least 10 (scenario 3 renames a tenth)" >&2; exit 2; }
[[ -x $BASE_BIN ]] || { echo "$script: BASE_BIN $BASE_BIN is not an executable file; build it with:
  git worktree add /tmp/pipeline-base 3f48575
  (cd /tmp/pipeline-base && swift build -c release --product pipeline --scratch-path /tmp/pipeline-base/.build)" >&2; exit 2; }
[[ $BASE_BIN == /* ]] || BASE_BIN=$repo/$BASE_BIN
find_binary
machine_facts
echo "base:    $BASE_BIN"
make_work cache
trap 'exit 130' INT
trap 'exit 143' TERM
tsv=$work/results.tsv
: >"$tsv"
mkdir -p "$work/logs"

# ------------------------------------------------------------------ the project
template=$work/template
echo
echo "== generating $IMAGES images of ${WIDTH}x$HEIGHT in $template/images/{a,b}"
"${helper[@]}" gen "$template/images/a" --count $((IMAGES / 2)) --width $WIDTH --height $HEIGHT
"${helper[@]}" gen "$template/images/b" --first $((IMAGES / 2 + 1)) --count $((IMAGES - IMAGES / 2)) --width $WIDTH --height $HEIGHT
# Spare images for scenario 5's edits: new bytes to copy over a source, in both formats.
"${helper[@]}" gen "$work/spares" --first $((IMAGES + 1)) --count "$CHURN_RUNS" --width $WIDTH --height $HEIGHT
if command -v vipsthumbnail >/dev/null 2>&1; then
    # Odd-numbered images become JPEGs (one vipsthumbnail for all; the size is unchanged).
    odd=("$template"/images/*/img*[13579].png)
    vipsthumbnail --size ${WIDTH}x$HEIGHT -o '%s.jpg[Q=90]' "${odd[@]}" "$work"/spares/*.png
    rm "${odd[@]}"
else
    echo "vipsthumbnail is missing: every image is a PNG (apt-get install libvips-tools for JPEGs too)"
fi
distinct=$(find "$template/images" -type f -exec sha256sum {} + | cut -c1-64 | sort -u | wc -l)
((distinct == IMAGES)) || { echo "$script: $distinct distinct images, expected $IMAGES" >&2; exit 1; }
echo "images: $(find "$template/images" -name '*.png' | wc -l) PNG, $(find "$template/images" -name '*.jpg' | wc -l) JPEG," \
    "$(du -sb "$template/images" | cut -f1) bytes in all"
cat "$template"/images/*/* >/dev/null  # warm the page cache

cat >"$template/pipeline.yml" <<YAML
version: 1
name: cache-bench
endpoint: local
results: results.json
assemblies:
  images:
    inputs: ["images/**/*.{png,jpg}"]
    batch: $BATCH
    steps:
      w100: {robot: /image/resize, use: ":original", width: 100}
      w200: {robot: /image/resize, use: ":original", width: 200}
      w300: {robot: /image/resize, use: ":original", width: 300}
    download: out
YAML

# fresh SIDE SCENARIO: a new copy of the project for one binary; prints its path.
fresh() {
    local dir=$work/$1/s$2
    mkdir -p "$work/$1"
    cp -a "$template" "$dir"
    echo "$dir"
}

# set_width DIR STEP WIDTH: the width of one step of DIR's manifest.
set_width() { sed -i "s/^\(      $2: .*width: \)[0-9]*/\1$3/" "$1/pipeline.yml"; }

# engine_files DIR KIND [TEST...]: the sorted paths of DIR's Assembly records (KIND records: the
# *.json files at the top of .pipeline/engine/assemblies/) or result files (KIND results) that
# pass find's TESTs; none before the first run.
engine_files() {
    local dir=$1/.pipeline/engine kind=$2
    shift 2
    if [[ $kind == records ]]; then
        find "$dir/assemblies" -maxdepth 1 -type f -name '*.json' "$@" 2>/dev/null | LC_ALL=C sort || true
    else
        find "$dir/results" -type f "$@" 2>/dev/null | LC_ALL=C sort || true
    fi
}

# written DIR KIND: "NEW REWRITTEN": the files of KIND newer than the marker (written by the run),
# split into those missing from the listing taken before the run and those in it (written
# again). A file linked in with its old time is not counted.
written() {
    engine_files "$1" "$2" -newer "$work/marker" >"$work/$2.newer"
    echo "$(LC_ALL=C comm -13 "$work/$2.before" "$work/$2.newer" | wc -l) $(LC_ALL=C comm -12 "$work/$2.before" "$work/$2.newer" | wc -l)"
}

# run_once SCENARIO ROW SIDE DIR [NOTE]: one `pipeline run` in DIR with SIDE's binary, its line
# added to $tsv (see bench/cache.py), NOTE added to its progress line. A failure is recorded,
# never fatal.
runs=0
run_once() {
    local scenario=$1 row=$2 side=$3 dir=$4 binary=$bin status=0 start seconds steps records results
    [[ $side == base ]] && binary=$BASE_BIN
    runs=$((runs + 1))
    local err=$work/logs/$runs-$side-s$scenario.err
    engine_files "$dir" records >"$work/records.before"
    engine_files "$dir" results >"$work/results.before"
    touch "$work/marker"
    sleep 0.05  # past the file system's clock tick, so the run's files are strictly newer
    start=$EPOCHREALTIME
    (cd "$dir" && "$binary" run pipeline.yml --quiet >/dev/null 2>"$err") || status=$?
    seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
    records=$(written "$dir" records)
    results=$(written "$dir" results)
    steps=$(grep -c '^      w[0-9]*:' "$dir/pipeline.yml")
    printf 'run\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scenario" "$row" "$side" "$seconds" \
        ${records% *} ${records#* } ${results% *} ${results#* } \
        "$(find "$dir/out" -type f 2>/dev/null | wc -l)" $((IMAGES * steps)) "$status" "$err" >>"$tsv"
    printf '%-5s %-4s %-44s %8ss  exit %s\n' "s$scenario" "$side" "$row${5:+ $5}" "$seconds" "$status"
}

# ----------------------------------------------------------------- the scenarios
scenario_1() {
    local dir
    dir=$(fresh "$1" 1)
    run_once 1 "first run (cold)" "$1" "$dir"
    set_width "$dir" w200 250
    run_once 1 "w200 width 200 -> 250" "$1" "$dir"
}

scenario_2() {
    local dir
    dir=$(fresh "$1" 2)
    run_once 2 "first run (cold)" "$1" "$dir"
    sed -i 's/^\(      w300: .*\)$/\1\n      w150: {robot: \/image\/resize, use: ":original", width: 150}/' "$dir/pipeline.yml"
    run_once 2 "a fourth step (w150)" "$1" "$dir"
}

# Every tenth image (in path order): even ones renamed in place, odd ones moved to images/moved/.
scenario_3() {
    local dir file n=0 k=0
    dir=$(fresh "$1" 3)
    run_once 3 "first run (cold)" "$1" "$dir"
    mkdir -p "$dir/images/moved"
    while IFS= read -r file; do
        n=$((n + 1))
        ((n % 10 == 0)) || continue
        if ((k++ % 2 == 0)); then
            mv "$file" "$(dirname "$file")/renamed-$(basename "$file")"
        else
            mv "$file" "$dir/images/moved/"
        fi
    done < <(find "$dir/images" -type f | sort)
    run_once 3 "10% renamed or moved ($k files)" "$1" "$dir"
}

# A fresh runner: the project restored at another absolute path, the first one gone; as it was,
# then with w200's width changed, then without its download folder (a cache of .pipeline/ and
# results.json only). Each from its own copy.
scenario_4() {
    local dir runner=$work/runner2/$1 copy
    dir=$(fresh "$1" 4)
    run_once 4 "first run (cold)" "$1" "$dir"
    mkdir -p "$runner"
    for copy in whole changed no-downloads; do cp -a "$dir" "$runner/$copy"; done
    rm -rf "$dir" "$runner/no-downloads/out"
    set_width "$runner/changed" w200 250
    run_once 4 "restored elsewhere" "$1" "$runner/whole"
    run_once 4 "restored elsewhere, w200 -> 250" "$1" "$runner/changed"
    run_once 4 "restored elsewhere, no downloads" "$1" "$runner/no-downloads"
}

# CHURN_RUNS runs with changes: odd runs flip one step's width (w100, w200, w300 in turn)
# between its first value and 25 more; even runs touch 5 images and copy new bytes over 2.
scenario_5() {
    local dir r i step base width spare=0 files
    declare -A wide=()
    dir=$(fresh "$1" 5)
    run_once 5 "first run (cold)" "$1" "$dir"
    for ((r = 1; r <= CHURN_RUNS; r++)); do
        if ((r % 2 == 1)); then
            step=$(((r / 2) % 3 + 1))
            base=$((step * 100))
            if [[ -n ${wide[$step]:-} ]]; then width=$base wide[$step]=; else width=$((base + 25)) wide[$step]=1; fi
            set_width "$dir" "w$base" "$width"
        else
            mapfile -t files < <(find "$dir/images" -type f | sort)
            for ((i = 0; i < 5; i++)); do touch "${files[(r * 11 + i * 31) % ${#files[@]}]}"; done
            for ((i = 0; i < 2; i++)); do
                local target=${files[(r * 17 + i * 53 + 7) % ${#files[@]}]}
                spare=$((spare + 1))
                cp "$work/spares/img$(printf %05d $((IMAGES + spare))).${target##*.}" "$target"
            done
        fi
        run_once 5 "$CHURN_RUNS runs with changes (sum)" "$1" "$dir" "#$r"
    done
    # du counts a file with several links once per call: alone, .pipeline/ is charged for the
    # sources and downloads it links; together, they are counted outside it.
    local pipeline project all
    pipeline=$(du -sb "$dir/.pipeline" | cut -f1)
    project=$(du -sbc "$dir/images" "$dir/out" | tail -1 | cut -f1)
    all=$(du -sbc "$dir/images" "$dir/out" "$dir/.pipeline" | tail -1 | cut -f1)
    printf 'size\t5\t%s\t%s\t%s\t%s\n' "$1" "$pipeline" $((all - project)) "$project" >>"$tsv"
    echo "s5    $1 .pipeline: $pipeline bytes (du -sb); sources + downloads: $project bytes"
}

echo
echo "== running (scenario, binary, run, wall seconds, exit status)"
for scenario in $SCENARIOS; do
    [[ $scenario =~ ^[1-5]$ ]] || { echo "$script: no scenario '$scenario' (1 to 5)" >&2; exit 2; }
    for side in base new; do
        "scenario_$scenario" "$side"
    done
done

echo
echo "== results (base: $BASE_BIN; new: $bin)"
"${helper[@]}" report "$tsv" --images "$IMAGES" --batch "$BATCH"
