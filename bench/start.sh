#!/usr/bin/env bash
# Benchmark: `pipeline serve`'s start over a long history. Times from the fork until the port
# answers an HTTP request (soak.py's probe), median of RUNS, over an empty data folder and over
# one holding STORED ended Assemblies, and the engine's idle RSS after each start. The stored
# ones are copies of one real Assembly's record: half ended with their files kept (marked in
# assemblies/ended/), half with their files gone (as `--retention` leaves them). Targets: listening
# within 100 ms with the history, and idle RSS within 10 MB of the empty engine's.
# See bench/README.md.
#
# Environment:
#   STORED=100000     ended Assemblies in the data folder
#   RUNS=5            starts measured on each folder (the median is reported)
#   BENCH_DIR=/tmp    where the temporary data folders are made
#   PIPELINE_BIN=...  binary to test; when unset, built as installed (.build/static)
#   SWIFT=swift       Swift driver used for that build
#   KEEP=1            keep the data folders instead of removing them
#   STRICT=1          exit 3 when a target is missed
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

STORED=${STORED:-100000}
RUNS=${RUNS:-5}
for value in "$STORED" "$RUNS"; do
    [[ $value =~ ^[0-9]+$ ]] || { echo "start.sh: STORED and RUNS must be whole numbers" >&2; exit 2; }
done
((RUNS >= 1)) || { echo "start.sh: RUNS must be at least 1" >&2; exit 2; }
python=$repo/.venv/bin/python
[[ -x $python ]] || { echo "start.sh: $python is missing (run scripts/setup.sh)" >&2; exit 2; }

script=start.sh
source "$repo/bench/lib.sh"
find_binary
machine_facts

work=$(mktemp -d "${BENCH_DIR:-/tmp}/pipeline-start.XXXXXX")
engine_pid=
probe_pid=
cleanup() {
    stop_pid "$engine_pid"
    [[ -n $probe_pid ]] && kill "$probe_pid" 2>/dev/null
    if [[ ${KEEP:-0} == 1 ]]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# start_on DATA: starts the engine on DATA at `port`, timed from the fork until the port answers;
# sets `engine_pid` and `started_ms`.
start_on() {
    start_probe "$python" "$port" "$work"
    local forked=$EPOCHREALTIME
    "$bin" serve --host 127.0.0.1 --port "$port" --data-dir "$1" --quiet >>"$work/engine.out" 2>>"$work/engine.err" &
    engine_pid=$!
    wait "$probe_pid" || { tail -n 20 "$work/engine.err" >&2; echo "start.sh: pipeline serve did not answer" >&2; exit 1; }
    probe_pid=
    started_ms=$(awk -v a="$(cat "$work/probe.out")" -v b="${forked/,/.}" 'BEGIN { printf "%.1f", (a - b) * 1000 }')
}

# measure DATA NAME: RUNS starts on DATA; prints each and sets `median_ms` and `rss_mb` (idle, after the last).
measure() {
    local times=()
    for ((run = 1; run <= RUNS; run++)); do
        start_on "$1"
        times+=("$started_ms")
        if ((run == RUNS)); then
            sleep 2  # the first sweep, which starts once the engine listens, has run
            rss_mb=$(awk '/^VmRSS:/ { printf "%.1f", $2 * 1024 / 1e6 }' "/proc/$engine_pid/status")
        fi
        stop_pid "$engine_pid"
        engine_pid=
    done
    median_ms=$(printf '%s\n' "${times[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    echo "$2: starts ${times[*]} ms; median $median_ms ms; idle RSS $rss_mb MB"
}

echo
echo "== one real Assembly, whose record is copied"
real=$work/real
"$bin" serve --host 127.0.0.1 --port 0 --data-dir "$real" --quiet >"$work/engine.out" 2>"$work/engine.err" &
engine_pid=$!
port=$(wait_for_line "$engine_pid" "$work/engine.out" 's|^pipeline serve: listening on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "pipeline serve")
head -c 4096 /dev/urandom >"$work/file.bin"
params='{"steps":{"hash":{"robot":"/file/hash","use":":original"}}}'
id=$(curl -sS -F "params=$params" -F "file=@$work/file.bin;filename=photo #1.jpg" "http://127.0.0.1:$port/assemblies" |
    "$python" -S -c 'import json, sys; print(json.load(sys.stdin)["assembly_id"])')
for ((i = 0; i < 100; i++)); do
    curl -sS "http://127.0.0.1:$port/assemblies/$id" | grep -q ASSEMBLY_COMPLETED && break
    sleep 0.1
done
stop_pid "$engine_pid"
engine_pid=

empty=$work/empty
history=$work/history
mkdir -p "$empty" "$history/assemblies/live" "$history/assemblies/ended"
echo "== $STORED ended Assemblies (copies of $id)"
"$python" -S - "$real/assemblies/$id.json" "$history/assemblies" "$STORED" <<'EOF'
import json, os, sys, uuid
template, folder, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
record = json.load(open(template))
for index in range(count):
    record["id"] = uuid.uuid4().hex
    if index % 2:
        record["filesRemoved"] = "2026-01-01T00:00:00Z"
    else:
        record.pop("filesRemoved", None)
        open(os.path.join(folder, "ended", record["id"]), "w").close()
    with open(os.path.join(folder, record["id"] + ".json"), "w") as out:
        json.dump(record, out, separators=(",", ":"))
EOF
echo "history: $(du -sb "$history" | awk '{ printf "%.0f MB", $1 / 1e6 }') in $(find "$history/assemblies" -maxdepth 1 -name '*.json' | wc -l) records"

echo
echo "== starts, $RUNS each"
measure "$empty" "empty"
empty_ms=$median_ms empty_rss=$rss_mb
measure "$history" "$STORED stored"
history_ms=$median_ms history_rss=$rss_mb

echo
missed=0
verdict() { if (($1)); then echo "PASS  $2"; else echo "MISS  $2"; missed=1; fi; }
verdict "$(awk -v t="$history_ms" 'BEGIN { print (t <= 100) }')" "listening within 100 ms with $STORED stored: $history_ms ms (empty: $empty_ms ms)"
verdict "$(awk -v a="$history_rss" -v b="$empty_rss" 'BEGIN { print (a - b <= 10) }')" \
    "idle RSS within 10 MB of the empty engine's: $history_rss MB against $empty_rss MB"
[[ ${STRICT:-0} == 1 && $missed == 1 ]] && exit 3
exit 0
