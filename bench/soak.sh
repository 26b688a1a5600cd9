#!/usr/bin/env bash
# Soak: the local engine under sustained load with a `kill -9` in the middle. W pytransloadit
# clients run Assemblies (/image/resize of small JPEGs, /file/hash of random bytes, every result
# checked) against one `pipeline serve` for D seconds; at D/2 the engine is killed and started
# again on the same data folder and port. Every SAMPLE_SECONDS the engine's RSS, open fds and
# the data folder's size go to a CSV. At the end: three clean restarts over the data folder as
# it is, then the report (completed, wrong, failed, lost, 5xx, latencies, resources per minute,
# restart times) and PASS/MISS lines. See bench/README.md.
#
# Environment:
#   W=12               clients (one process each)
#   D=180              seconds of load (the acceptance run: 1800)
#   SERVE_ARGS=        more `pipeline serve` flags, such as "--retention 5m"
#   HASH_MIB=4         MiB of random bytes per /file/hash Assembly
#   RESIZE_PERCENT=50  share of /image/resize Assemblies
#   IMAGES=8           distinct source JPEGs (IMAGE_SIZE, made with ffmpeg)
#   IMAGE_SIZE=640x480 their size; thumbnails fit BOX=160x120
#   KILL=1             0 leaves out the kill -9
#   DRAIN=60           seconds Assemblies under way at D get to end before they count as lost
#   SAMPLE_SECONDS=10  interval of the RSS/fds/disk samples
#   RESTARTS=3         clean restarts measured at the end (the median is checked)
#   MIN_FREE_MIB=4096  stop (exit 1) when the data folder's disk has fewer MiB free
#   CSV=...            where the samples go (default $BENCH_DIR/pipeline-soak-DATE.csv; kept)
#   BENCH_DIR=/tmp     where the temporary data folder is made
#   PIPELINE_BIN=...   binary to test; when unset, built as installed (.build/static)
#   SWIFT=swift        Swift driver used for that build
#   KEEP=1             keep the data folder (and the clients' records) instead of removing it
#   STRICT=1           exit 3 when a target is missed
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

W=${W:-12}
D=${D:-180}
HASH_MIB=${HASH_MIB:-4}
RESIZE_PERCENT=${RESIZE_PERCENT:-50}
IMAGES=${IMAGES:-8}
IMAGE_SIZE=${IMAGE_SIZE:-640x480}
BOX=${BOX:-160x120}
KILL=${KILL:-1}
DRAIN=${DRAIN:-60}
SAMPLE_SECONDS=${SAMPLE_SECONDS:-10}
RESTARTS=${RESTARTS:-3}
MIN_FREE_MIB=${MIN_FREE_MIB:-4096}
read -ra serve_args <<<"${SERVE_ARGS:-}"
for value in "$W" "$D" "$HASH_MIB" "$RESIZE_PERCENT" "$IMAGES" "$DRAIN" "$SAMPLE_SECONDS" "$RESTARTS" "$MIN_FREE_MIB"; do
    [[ $value =~ ^[0-9]+$ ]] ||
        { echo "soak.sh: W, D, HASH_MIB, RESIZE_PERCENT, IMAGES, DRAIN, SAMPLE_SECONDS, RESTARTS and MIN_FREE_MIB must be whole numbers" >&2; exit 2; }
done
((W >= 1 && D >= 2 && IMAGES >= 1 && SAMPLE_SECONDS >= 1 && HASH_MIB >= 1 && RESIZE_PERCENT <= 100)) ||
    { echo "soak.sh: needs W >= 1, D >= 2, IMAGES >= 1, SAMPLE_SECONDS >= 1, HASH_MIB >= 1, RESIZE_PERCENT <= 100" >&2; exit 2; }
((D >= 3 * SAMPLE_SECONDS)) || { echo "soak.sh: D must be at least 3 x SAMPLE_SECONDS (a sample in each third)" >&2; exit 2; }
[[ $IMAGE_SIZE =~ ^[0-9]+x[0-9]+$ && $BOX =~ ^[0-9]+x[0-9]+$ ]] ||
    { echo "soak.sh: IMAGE_SIZE and BOX must be WxH" >&2; exit 2; }
[[ $KILL == 0 || $KILL == 1 ]] || { echo "soak.sh: KILL must be 0 or 1" >&2; exit 2; }

sdk_python=$repo/.venv/bin/python
[[ -x $sdk_python ]] || { echo "soak.sh: $sdk_python is missing (run scripts/setup.sh)" >&2; exit 2; }
"$sdk_python" -c 'import transloadit.client, tusclient.client' 2>/dev/null ||
    { echo "soak.sh: pytransloadit or tuspy is not installed in .venv (run scripts/setup.sh)" >&2; exit 2; }
command -v ffmpeg >/dev/null || { echo "soak.sh: ffmpeg is not installed (scripts/setup.sh installs it)" >&2; exit 2; }
[[ -r /proc/self/status ]] || { echo "soak.sh: needs /proc (Linux)" >&2; exit 2; }
# The venv's interpreter starts at once (a pyenv shim first runs a shell script); -S: no site
# packages, the probe and the report need none.
soak=("$sdk_python" -S "$repo/bench/soak.py")

script=soak.sh
source "$repo/bench/lib.sh"
find_binary
"$bin" serve --help >/dev/null 2>&1 || { echo "soak.sh: $bin has no 'serve' command (rebuild it)" >&2; exit 2; }
machine_facts
echo "sdk:     pytransloadit $("$sdk_python" -c 'from importlib.metadata import version; print(version("pytransloadit"))'), tuspy $("$sdk_python" -c 'from importlib.metadata import version; print(version("tuspy"))') ($("$sdk_python" --version 2>&1))"
echo "serve:   ${SERVE_ARGS:-(no extra flags)}"
echo "load:    W=$W clients for D=$D s, $([[ $KILL == 1 ]] && echo "kill -9 at $((D / 2)) s" || echo "no kill (KILL=0)")"

# ------------------------------------------------------------ work folder
mkdir -p "${BENCH_DIR:-/tmp}"
work=$(mktemp -d "${BENCH_DIR:-/tmp}/pipeline-soak.XXXXXX")
data=$work/data
csv=${CSV:-${BENCH_DIR:-/tmp}/pipeline-soak-$(date -u +%Y%m%dT%H%M%SZ).csv}
events=$work/events
engine_pid=
probe_pid=
clients_pid=
sampler_pid=
cleanup() {
    trap '' INT TERM
    stop_pid "$clients_pid"
    stop_pid "$sampler_pid"
    stop_pid "$probe_pid"
    stop_pid "$engine_pid"
    if [[ ${KEEP:-} == 1 ]]; then
        echo "soak.sh: kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
# Turn signals into an exit, so the EXIT trap stops what runs.
trap 'exit 130' INT
trap '[[ -e $work/disk-full ]] && exit 1; exit 143' TERM
mkdir -p "$data" "$work/images" "$work/records"
: >"$events"

now_us() { local now=${EPOCHREALTIME/[.,]/}; echo "$((10#$now))"; }

echo
echo "== $IMAGES JPEGs of $IMAGE_SIZE (ffmpeg testsrc2 with noise)"
ffmpeg -nostdin -loglevel error -y -f lavfi -i "testsrc2=size=$IMAGE_SIZE:rate=5" -vf "noise=alls=20:allf=t" \
    -frames:v "$IMAGES" -q:v 3 "$work/images/img%03d.jpg"
images=("$work"/images/img*.jpg)
((${#images[@]} == IMAGES)) || { echo "soak.sh: ffmpeg made ${#images[@]} images, expected $IMAGES" >&2; exit 1; }

# ---------------------------------------------------------------- engine
# start_measured [kill]: starts the engine on `port` over `data`, timing from the fork until the
# port answers an HTTP request (soak.py probe, started first so its own start is not counted);
# with `kill`, first kills the running engine with SIGKILL once the probe runs (the probe counts
# only answers after a refusal). Sets `engine_pid`, `started_ms`, `answered` (when it answered,
# seconds since the epoch) and, with `kill`, `killed` (when it was killed).
start_measured() {
    start_probe "$sdk_python" "$port" "$work"
    if [[ ${1:-} == kill ]]; then
        kill -KILL "$engine_pid"
        killed=${EPOCHREALTIME/,/.}
        wait "$engine_pid" 2>/dev/null || true
    fi
    local forked=$EPOCHREALTIME
    "$bin" serve --host 127.0.0.1 --port "$port" --data-dir "$data" --quiet ${serve_args[@]+"${serve_args[@]}"} \
        >>"$work/engine.out" 2>>"$work/engine.err" &
    engine_pid=$!
    echo "$engine_pid" >"$work/engine.pid"
    if ! wait "$probe_pid"; then
        probe_pid=
        tail -n 20 "$work/engine.err" >&2
        echo "soak.sh: pipeline serve did not answer on port $port" >&2
        exit 1
    fi
    probe_pid=
    answered=$(cat "$work/probe.out")
    started_ms=$(awk -v a="$answered" -v b="${forked/,/.}" 'BEGIN { printf "%.1f", (a - b) * 1000 }')
}

# idle_sample NAME: the engine's VmRSS (kB) and open fds, as an event.
idle_sample() {
    local rss fds
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$engine_pid/status")
    fds=$(find "/proc/$engine_pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
    echo "$1 $rss $fds" >>"$events"
}

echo
echo "== starting pipeline serve on 127.0.0.1 (data: $data)"
"$bin" serve --host 127.0.0.1 --port 0 --data-dir "$data" --quiet ${serve_args[@]+"${serve_args[@]}"} \
    >"$work/engine.out" 2>"$work/engine.err" &
engine_pid=$!
port=$(wait_for_line "$engine_pid" "$work/engine.out" 's|^pipeline serve: listening on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "pipeline serve")
origin=http://127.0.0.1:$port
# Restarted once over the empty folder: the baseline of the restart times below.
stop_pid "$engine_pid"
start_measured
echo "restart_empty $started_ms" >>"$events"
echo "origin: $origin (pid $engine_pid); restart over the empty data folder: $started_ms ms"
idle_sample idle_start

# --------------------------------------------------------------- sampler
# One CSV line every SAMPLE_SECONDS from the clients' start: seconds, engine pid, VmRSS (kB),
# open fds, data folder bytes (du -sb). A line each minute shows how the run goes.
sampler() {
    local start_us=$1 k=0 minute=0 pid rss fds bytes free elapsed_us wait_us sleeper=
    trap '[[ -n $sleeper ]] && kill "$sleeper" 2>/dev/null; exit 0' TERM
    echo "seconds,pid,rss_kb,fds,data_bytes" >"$csv"
    while :; do
        elapsed_us=$(($(now_us) - start_us))
        pid=$(cat "$work/engine.pid" 2>/dev/null || true)
        rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
        fds=
        [[ -n $rss ]] && fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
        bytes=$(du -sb "$data" 2>/dev/null | cut -f1 || true)
        free=$(df -Pk "$data" | awk 'NR == 2 { print int($4 / 1024) }')
        if ((free < MIN_FREE_MIB)); then
            echo "soak.sh: only $free MiB free beside $data (MIN_FREE_MIB=$MIN_FREE_MIB): stopping the soak" >&2
            : >"$work/disk-full"
            kill -TERM $$
            exit 0
        fi
        printf '%d.%02d,%s,%s,%s,%s\n' $((elapsed_us / 1000000)) $((elapsed_us % 1000000 / 10000)) "$pid" "$rss" "$fds" "$bytes" >>"$csv"
        if ((elapsed_us / 60000000 > minute)); then
            minute=$((elapsed_us / 60000000))
            printf '[%5d s] RSS %s MB, fds %s, data %s MB, %d Assemblies ended\n' $((elapsed_us / 1000000)) \
                "$(awk -v v="${rss:-0}" 'BEGIN { printf "%.1f", v * 1024 / 1e6 }')" "${fds:--}" \
                "$(awk -v v="${bytes:-0}" 'BEGIN { printf "%.0f", v / 1e6 }')" \
                "$(cat "$work"/records/*.jsonl 2>/dev/null | wc -l)"
        fi
        k=$((k + 1))
        wait_us=$((start_us + k * SAMPLE_SECONDS * 1000000 - $(now_us)))
        if ((wait_us > 0)); then
            sleep "$(printf '%d.%06d' $((wait_us / 1000000)) $((wait_us % 1000000)))" &
            sleeper=$!
            wait "$sleeper" || true
            sleeper=
        fi
    done
}

# --------------------------------------------------------------- the run
echo
echo "== $W clients for $D s (reference thumbnails first, one Assembly per image)"
"$sdk_python" "$repo/bench/soak.py" clients "$origin" "${images[@]}" --workers "$W" --seconds "$D" --drain "$DRAIN" \
    --records "$work/records" --started "$work/started" --hash-mib "$HASH_MIB" --resize-percent "$RESIZE_PERCENT" \
    --box "$BOX" >"$work/clients.out" 2>"$work/clients.err" &
clients_pid=$!
until [[ -s $work/started ]]; do
    if ! kill -0 "$clients_pid" 2>/dev/null; then
        cat "$work/clients.err" >&2
        echo "soak.sh: the clients stopped before the load began" >&2
        exit 1
    fi
    sleep 0.1
done
start_us=$(cat "$work/started")
echo "start $start_us" >>"$events"
sampler "$start_us" &
sampler_pid=$!

if [[ $KILL == 1 ]]; then
    kill_us=$((start_us + D * 1000000 / 2))
    while (($(now_us) < kill_us)) && kill -0 "$clients_pid" 2>/dev/null; do
        sleep 0.2
    done
    if kill -0 "$clients_pid" 2>/dev/null; then
        start_measured kill
        echo "kill $killed" >>"$events"
        down_ms=$(awk -v a="$answered" -v b="$killed" 'BEGIN { printf "%.0f", (a - b) * 1000 }')
        echo "restart_kill $started_ms" >>"$events"
        echo "down_kill $down_ms" >>"$events"
        echo "[$(awk -v a="$killed" -v b="$start_us" 'BEGIN { printf "%.1f", a - b / 1e6 }') s] kill -9; restarted in $started_ms ms (pid $engine_pid), $down_ms ms without an engine"
    fi
fi

clients_status=0
wait "$clients_pid" || clients_status=$?
clients_pid=
stop_pid "$sampler_pid"
sampler_pid=
if ((clients_status != 0)); then
    tail -n 20 "$work/clients.err" >&2
    echo "soak.sh: the clients exited with status $clients_status" >&2
    exit 1
fi
if ! kill -0 "$engine_pid" 2>/dev/null; then
    tail -n 20 "$work/engine.err" >&2
    echo "soak.sh: pipeline serve exited on its own during the run" >&2
    exit 1
fi
idle_sample idle_end

# --------------------------------------------------------- clean restarts
echo
echo "== clean restarts over the data folder ($RESTARTS; $(du -sb "$data" | awk '{ printf "%.0f MB", $1 / 1e6 }'))"
for ((run = 1; run <= RESTARTS; run++)); do
    stop_pid "$engine_pid"
    start_measured
    echo "restart_clean $started_ms" >>"$events"
    echo "restart $run: $started_ms ms"
done
if ((RESTARTS > 0)); then
    idle_sample idle_restarted
fi
stop_pid "$engine_pid"
engine_pid=

# ----------------------------------------------------------------- report
echo
echo "== results (samples: $csv)"
"${soak[@]}" report --records "$work/records" --samples "$csv" --events "$events" --seconds "$D" --workers "$W" \
    --sample-seconds "$SAMPLE_SECONDS"
