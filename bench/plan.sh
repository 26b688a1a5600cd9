#!/usr/bin/env bash
# Benchmark: `pipeline plan` on 100,000 small files, on one 1 GiB file and on
# one large photo (a JPEG, walked to its end marker while it is hashed), next to
# `find | sha256sum` on the same data. See bench/README.md.
#
# Environment:
#   FILES=100000      number of small files
#   BIG_MIB=1024      size of the big file in MiB
#   JPEG_SIDE=8192    width and height of the noise JPEG (about 70 MB; 0 skips it)
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

FILES=${FILES:-100000}
BIG_MIB=${BIG_MIB:-1024}
JPEG_SIDE=${JPEG_SIDE:-8192}
RUNS=${RUNS:-3}
# -S skips site imports: a smaller measuring process means a lower memory
# floor for the children it measures (see bench/measure.py).
measure=(python3 -S "$repo/bench/measure.py")

for value in "$FILES" "$BIG_MIB" "$JPEG_SIDE" "$RUNS"; do
    [[ $value =~ ^[0-9]+$ ]] || { echo "plan.sh: FILES, BIG_MIB, JPEG_SIDE and RUNS must be whole numbers" >&2; exit 2; }
done
((RUNS >= 1)) || { echo "plan.sh: RUNS must be at least 1" >&2; exit 2; }

if command -v sha256sum >/dev/null 2>&1; then
    sha=(sha256sum)
elif command -v shasum >/dev/null 2>&1; then
    sha=(shasum -a 256)
else
    echo "plan.sh: neither sha256sum nor shasum is installed" >&2
    exit 2
fi

# ------------------------------------------------- binary and machine facts
script=plan.sh
source "$repo/bench/lib.sh"
find_binary
machine_facts
echo "baseline: ${sha[*]}"

# ------------------------------------------------------------------- data
mkdir -p "${BENCH_DIR:-/tmp}"
work=$(mktemp -d "${BENCH_DIR:-/tmp}/pipeline-bench.XXXXXX")
cleanup() {
    if [[ ${KEEP:-} == 1 ]]; then
        echo "plan.sh: kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT

data=$work/data
out=$work/out
mkdir -p "$data" "$out"

echo
echo "== generating $FILES small files and a $BIG_MIB MiB file in $data"
start=$(date +%s)
"${measure[@]}" gen "$data" --files "$FILES" --big-mib "$BIG_MIB"
if ((JPEG_SIDE > 0)); then
    # Noise: the entropy-coded data is as long as it gets, full of 0xFF bytes to step over.
    mkdir -p "$data/photos"
    ffmpeg -nostdin -loglevel error -y -f lavfi -i "nullsrc=s=${JPEG_SIDE}x${JPEG_SIDE},geq=random(1)*255:random(2)*255:random(3)*255" \
        -frames:v 1 -q:v 1 -update 1 "$data/photos/big.jpg"
fi
echo "generated in $(($(date +%s) - start)) s"

cat >"$data/small.yml" <<'YAML'
version: 1
name: bench
assemblies:
  small:
    inputs: ["files/**/*.txt"]
    batch: 100
    steps:
      sums: {robot: /file/hash, use: ":original"}
YAML

cat >"$data/big.yml" <<'YAML'
version: 1
name: bench
assemblies:
  big:
    inputs: ["big/*.bin"]
    batch: 1
    steps:
      sums: {robot: /file/hash, use: ":original"}
YAML

# An image step: plan checks the photo is whole (its end marker) as it hashes it.
cat >"$data/jpeg.yml" <<'YAML'
version: 1
name: bench
assemblies:
  photos:
    inputs: ["photos/*.jpg"]
    steps:
      thumb: {robot: /image/resize, use: ":original", width: 200}
YAML

cd "$data"

# Caches cannot be dropped without root, so warm them instead: both tools
# then read the data from the page cache.
echo
echo "== warming the page cache (one read of all data; both tools run warm)"
if ((FILES > 0)); then
    find files -type f -print0 | xargs -0 cat >/dev/null
fi
if ((BIG_MIB > 0)); then
    cat big/big.bin >/dev/null
fi
if ((JPEG_SIDE > 0)); then
    cat photos/big.jpg >/dev/null
fi

# git re-checks an unchanged tree against its index the way a re-plan checks
# the digest cache: the re-plan's baseline is `git add -A` of the same files.
if command -v git >/dev/null 2>&1 && ((FILES > 0)); then
    echo
    echo "== indexing the small files with git (the re-plan's baseline)"
    printf '.pipeline/\n' >.gitignore
    git init -q . && git add -A files .gitignore
fi

# -------------------------------------------------------------- measuring
results=$out/results.tsv
: >"$results"

measure_once() {
    # Each measurement runs in its own measure.py process, so the peak
    # memory it reports belongs to that command alone.
    "${measure[@]}" run --name "$@" | tee -a "$results"
}

small_baseline="find files -type f -name '*.txt' -print0 | sort -z | xargs -0 ${sha[*]} >/dev/null"

echo
echo "== measuring ($RUNS runs each; name, seconds, peak MB)"
for ((run = 1; run <= RUNS; run++)); do
    if ((FILES > 0)); then
        # A first plan (no digest cache), then the same files again (the cache in .pipeline/).
        rm -rf .pipeline
        measure_once small-pipeline -- "$bin" plan small.yml --out "$out/small-plan.json"
        # Again over the same file, as a build re-plans into its committed plan; the first is kept aside to compare.
        cp "$out/small-plan.json" "$out/small-plan-first.json"
        measure_once small-replan -- "$bin" plan small.yml --out "$out/small-plan.json"
        measure_once small-baseline -- bash -c "$small_baseline"
        if [[ -d .git ]]; then
            measure_once small-git -- git add -A files
        fi
    fi
    if ((BIG_MIB > 0)); then
        rm -rf .pipeline
        measure_once big-pipeline -- "$bin" plan big.yml --out "$out/big-plan.json"
        measure_once big-baseline -- "${sha[@]}" big/big.bin
    fi
    if ((JPEG_SIDE > 0)); then
        rm -rf .pipeline
        measure_once jpeg-pipeline -- "$bin" plan jpeg.yml --out "$out/jpeg-plan.json"
        measure_once jpeg-baseline -- "${sha[@]}" photos/big.jpg
    fi
done

# ------------------------------------------------------------ correctness
echo
echo "== checking the plans"
wrong() {
    echo "plan.sh: FAIL: $1 plan is wrong (see above); no results table" >&2
    exit 1
}
if ((FILES > 0)); then
    "${measure[@]}" verify "$out/small-plan.json" --root "$data" --count "$FILES" --sample 200 ||
        wrong "the $FILES-file"
    cmp -s "$out/small-plan-first.json" "$out/small-plan.json" || wrong "the cached $FILES-file (it differs from the first)"
fi
if ((BIG_MIB > 0)); then
    expected=$("${sha[@]}" big/big.bin | cut -d' ' -f1)
    "${measure[@]}" verify "$out/big-plan.json" --root "$data" --count 1 --file "big/big.bin=$expected" ||
        wrong "the big-file"
fi

# ----------------------------------------------------------------- report
echo
echo "== results"
"${measure[@]}" report "$results" --files "$FILES" --big-mib "$BIG_MIB" \
    --jpeg-bytes "$( ((JPEG_SIDE > 0)) && stat -c %s photos/big.jpg || echo 0)"
