#!/usr/bin/env bash
# Benchmark: a run at a distance. ASSEMBLIES one-file Assemblies (256x256 PNG -> width 64) on
# `pipeline serve` behind a proxy that delays each direction by DELAY_MS (bench/delay_proxy.py,
# a real TCP proxy on 127.0.0.1), with the default settings and with --concurrency 16, for the
# binary under test and, when BEFORE_BIN is set, an earlier one in the same run. Prints each
# run's time, the requests per Assembly the engine answered, and the ratio to the latency
# bound: ASSEMBLIES x 3 round trips (create, tus creation-with-upload, one poll) / concurrency.
#
# Environment:
#   ASSEMBLIES=300    one file each
#   DELAY_MS=25       each way (a 50 ms round trip)
#   PIPELINE_BIN=...  binary to test; when unset, built as installed (.build/static)
#   BEFORE_BIN=...    an earlier binary to run beside it (optional)
#   BENCH_DIR=/tmp    where the temporary folder is made; KEEP=1 keeps it
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
script=distance.sh
ASSEMBLIES=${ASSEMBLIES:-300}
DELAY_MS=${DELAY_MS:-25}
measure=(python3 -S "$repo/bench/measure.py")
# shellcheck source=bench/lib.sh
source "$repo/bench/lib.sh"
[[ $ASSEMBLIES =~ ^[1-9][0-9]*$ && $DELAY_MS =~ ^[0-9]+$ ]] || { echo "$script: ASSEMBLIES and DELAY_MS must be whole numbers" >&2; exit 2; }
find_binary
machine_facts
make_work distance
proxy_pid=
trap 'stop_pid "$proxy_pid"; stop_pid "$engine_pid"; [[ ${KEEP:-} == 1 ]] || rm -rf "$work"' EXIT

"${measure[@]}" gen-pngs "$work/project/images" --count "$ASSEMBLIES" --size 256 >/dev/null
# The proxy first (on a port the engine then names as its public address), the engine behind it;
# the engine logs one line per request: the requests each Assembly took.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 "$repo/bench/delay_proxy.py" "$port" "$DELAY_MS" >"$work/proxy.out" 2>"$work/proxy.err" &
proxy_pid=$!
proxy=$(wait_for_line "$proxy_pid" "$work/proxy.out" 's|^PORT \([0-9][0-9]*\)$|\1|p' "the delay proxy")
"$bin" serve --host 127.0.0.1 --port "$port" --public-url "http://127.0.0.1:$proxy" --data-dir "$work/engine" >"$work/engine.out" 2>"$work/engine.err" &
engine_pid=$!
wait_for_line "$engine_pid" "$work/engine.out" 's|^pipeline serve: listening on \(.*\)$|\1|p' "pipeline serve" >/dev/null

cat >"$work/project/pipeline.yml" <<YAML
version: 1
endpoint: http://127.0.0.1:$proxy
auth: {key: bench-key}
results: results.json
assemblies:
  thumbs:
    inputs: ["images/*.png"]
    batch: 1
    steps:
      small: {robot: /image/resize, use: ":original", width: 64, result: true}
YAML

round_trip=$(awk -v d="$DELAY_MS" 'BEGIN { print 2 * d / 1000 }')
echo "== $ASSEMBLIES one-file Assemblies through a proxy adding $((2 * DELAY_MS)) ms per round trip"
printf '%-34s %8s %10s %12s %8s\n' run seconds requests/A bound-s ratio
contender() {
    local name=$1 binary=$2 concurrency=$3
    shift 3
    rm -rf "$work/project/.pipeline" "$work/project/results.json"
    local before after started finished
    before=$(wc -l <"$work/engine.err")
    started=$(date +%s.%N)
    (cd "$work/project" && TRANSLOADIT_SECRET=bench "$binary" run pipeline.yml --concurrency "$concurrency" "$@" >/dev/null 2>"$work/run.err") \
        || { cat "$work/run.err" >&2; echo "$script: $name failed" >&2; exit 1; }
    finished=$(date +%s.%N)
    after=$(wc -l <"$work/engine.err")
    awk -v n="$name" -v s="$started" -v f="$finished" -v r=$((after - before)) -v a="$ASSEMBLIES" -v c="$concurrency" -v t="$round_trip" \
        'BEGIN { bound = a * 3 * t / c; printf "%-34s %8.1f %10.1f %12.2f %8.2f\n", n, f - s, r / a, bound, (f - s) / bound }'
}
for concurrency in 4 16; do
    if [[ -n ${BEFORE_BIN:-} ]]; then
        if ((concurrency == 4)); then
            contender "before, default (concurrency 4)" "$BEFORE_BIN" 4
        else
            contender "before, concurrency 16, unpaced" "$BEFORE_BIN" 16 --max-assemblies-per-minute 100000
        fi
    fi
    contender "now, concurrency $concurrency (default: $([[ $concurrency == 4 ]] && echo yes || echo no))" "$bin" "$concurrency"
done
