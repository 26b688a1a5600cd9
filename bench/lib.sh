# Shared by the benchmark scripts: finding the binary and printing machine facts.
# Source it after `repo` is set; `script` names the caller in error messages.

# Sets `bin` to $PIPELINE_BIN, or builds the release binary as the packages and `make install`
# have it (Swift's libraries linked in) and uses it.
find_binary() {
    if [[ -n ${PIPELINE_BIN:-} ]]; then
        bin=$PIPELINE_BIN
    else
        echo "== building the release binary (Swift's libraries linked in, as installed)"
        "${SWIFT:-swift}" build -c release --static-swift-stdlib --disable-local-rpath --product pipeline --scratch-path .build/static
        bin=.build/static/release/pipeline
    fi
    [[ $bin == /* ]] || bin="$repo/$bin"
    [[ -x $bin ]] || { echo "$script: $bin is not an executable file" >&2; exit 2; }
}

# Prints date, CPUs, CPU model, memory, kernel and the binary under test.
machine_facts() {
    echo "== machine"
    echo "date:    $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
    if command -v nproc >/dev/null 2>&1; then
        echo "cpus:    $(nproc)"
    else
        echo "cpus:    $(sysctl -n hw.ncpu 2>/dev/null || echo unknown)"
    fi
    local cpu
    cpu=$(grep -m1 -E '^(model name|Model|Hardware)' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
    [[ -n $cpu ]] || cpu=$(sysctl -n machdep.cpu.brand_string 2>/dev/null || echo unknown)
    echo "cpu:     $cpu"
    if [[ -r /proc/meminfo ]]; then
        echo "memory:  $(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
    else
        echo "memory:  $(sysctl -n hw.memsize 2>/dev/null | awk '{ printf "%.1f GiB", $1 / 1073741824 }')"
    fi
    echo "kernel:  $(uname -srm)"
    echo "binary:  $bin"
}

# stop_pid PID: SIGTERM, up to 5 s to exit, then SIGKILL.
stop_pid() {
    local pid=$1
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# wait_for_line PID FILE SED-SCRIPT WHAT: prints what SED-SCRIPT extracts from
# FILE once it appears (up to 30 s); exits 2 if the server dies or stays silent.
# The server's standard error is expected beside FILE, as FILE with .err for .out.
wait_for_line() {
    local pid=$1 file=$2 expression=$3 what=$4 value=
    for ((i = 0; i < 300; i++)); do
        # The file appears once the backgrounded server's redirection has run.
        value=$(sed -n "$expression" "$file" 2>/dev/null || true)
        [[ -n $value ]] && break
        if ! kill -0 "$pid" 2>/dev/null; then
            cat "${file%.out}.err" >&2
            echo "$script: $what exited before it was listening" >&2
            exit 2
        fi
        sleep 0.1
    done
    if [[ -z $value ]]; then
        cat "${file%.out}.err" >&2
        echo "$script: $what did not print its port within 30 s" >&2
        exit 2
    fi
    echo "$value"
}

# make_work NAME: a fresh folder `work` under $BENCH_DIR (default /tmp), removed on exit unless
# KEEP=1, with `results` (the file `measure_once` appends to) in it; an engine started with
# `start_engine` is stopped on exit too. Needs `measure` set.
make_work() {
    mkdir -p "${BENCH_DIR:-/tmp}"
    work=$(mktemp -d "${BENCH_DIR:-/tmp}/pipeline-$1.XXXXXX")
    engine_pid=
    trap 'stop_pid "$engine_pid"; if [[ ${KEEP:-} == 1 ]]; then echo "$script: kept $work" >&2; else rm -rf "$work"; fi' EXIT
    results=$work/results.tsv
    : >"$results"
}

# measure_once NAME -- COMMAND...: one measured run, its line appended to `results`.
measure_once() { "${measure[@]}" run --name "$@" | tee -a "$results"; }

# start_engine DATA_DIR: starts `pipeline serve` on a free port of 127.0.0.1; sets `engine_pid`
# and `port`.
start_engine() {
    "$bin" serve --host 127.0.0.1 --port 0 --data-dir "$1" --quiet >"$work/engine.out" 2>"$work/engine.err" &
    engine_pid=$!
    port=$(wait_for_line "$engine_pid" "$work/engine.out" 's|^pipeline serve: listening on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "pipeline serve")
}

# engine_peak: the engine's peak resident memory in MB (VmHWM), or "?".
engine_peak() { awk '/^VmHWM:/ { printf "%.1f", $2 * 1024 / 1e6 }' "/proc/$engine_pid/status" 2>/dev/null || echo "?"; }

# start_probe PYTHON PORT FOLDER: starts bench/soak.py's probe of 127.0.0.1:PORT (it prints the
# time of the first HTTP answer after a refusal to FOLDER/probe.out) and returns once it runs;
# sets `probe_pid`. Time a server's start from its fork to that answer (soak.sh, start.sh).
start_probe() {
    rm -f "$3/probe.ready"
    "$1" -S "$repo/bench/soak.py" probe "$2" --ready "$3/probe.ready" >"$3/probe.out" 2>"$3/probe.err" &
    probe_pid=$!
    for ((i = 0; i < 1000; i++)); do
        [[ -e $3/probe.ready ]] && return 0
        sleep 0.01
    done
    cat "$3/probe.err" >&2
    echo "$script: the probe did not start" >&2
    exit 1
}
