#!/usr/bin/env bash
# Benchmark: `pipeline validate` of a manifest with many steps, every one checked against the
# robot catalog, next to `pipeline --version` (the same binary starting and doing nothing) as
# the baseline. Target: hundreds of steps validate in well under 100 ms.
#
# Environment:
#   JOBS=50           jobs in the manifest
#   STEPS=10          steps per job (JOBS x STEPS steps in all)
#   RUNS=10           runs per command (best time)
#   PIPELINE_BIN=...  binary to test; when unset, built as installed (.build/static)
#   STRICT=1          exit 3 when the target is missed
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-50}
STEPS=${STEPS:-10}
RUNS=${RUNS:-10}
if [ -z "${PIPELINE_BIN:-}" ]; then
    swift build -c release --static-swift-stdlib --disable-local-rpath --product pipeline --scratch-path .build/static >&2
    PIPELINE_BIN=.build/static/release/pipeline
fi
data=$(mktemp -d "${TMPDIR:-/tmp}/pipeline-bench-validate.XXXXXX")
trap 'rm -rf "$data"' EXIT

python3 - "$data/pipeline.yml" "$JOBS" "$STEPS" <<'PY'
import sys
path, jobs, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
robots = [
    ("/image/resize", "width: 200, height: 100, resize_strategy: fit, quality: 80"),
    ("/image/optimize", "progressive: true"),
    ("/video/encode", "preset: ipad-high, width: 640, height: 360"),
    ("/audio/encode", "preset: mp3, bitrate: 128000"),
    ("/file/filter", "accepts: [['${file.mime}', 'regex', 'image']]"),
    ("/file/hash", "algorithm: sha256"),
    ("/document/thumbs", "page: 1, width: 300"),
]
with open(path, "w") as out:
    out.write("version: 1\nassemblies:\n")
    for job in range(jobs):
        out.write(f"  job{job}:\n    inputs: ['in/*']\n    allow_empty: true\n    steps:\n")
        for step in range(steps):
            robot, options = robots[(job + step) % len(robots)]
            use = '":original"' if step == 0 else f"s{step - 1}"
            out.write(f"      s{step}: {{robot: {robot}, use: {use}, {options}}}\n")
PY

best() {
    local fastest=""
    for _ in $(seq "$RUNS"); do
        local start end
        start=$(date +%s%N)
        "$@" > /dev/null
        end=$(date +%s%N)
        local took=$(( (end - start) / 1000 ))
        if [ -z "$fastest" ] || [ "$took" -lt "$fastest" ]; then fastest=$took; fi
    done
    echo "$fastest"
}
"$PIPELINE_BIN" validate "$data/pipeline.yml" > /dev/null
validate=$(best "$PIPELINE_BIN" validate "$data/pipeline.yml")
startup=$(best "$PIPELINE_BIN" --version)
steps=$((JOBS * STEPS))
printf 'case                                        ms (best of %s)\n' "$RUNS"
printf 'pipeline validate, %4d steps               %8.1f\n' "$steps" "$(echo "$validate / 1000" | bc -l)"
printf 'pipeline --version (start-up baseline)      %8.1f\n' "$(echo "$startup / 1000" | bc -l)"
printf 'validation work beyond start-up             %8.1f\n' "$(echo "($validate - $startup) / 1000" | bc -l)"
if [ "$validate" -lt 100000 ]; then
    echo "PASS  $steps steps validate in under 100 ms"
else
    echo "MISS  $steps steps validate in under 100 ms"
    [ "${STRICT:-0}" = 1 ] && exit 3
fi
