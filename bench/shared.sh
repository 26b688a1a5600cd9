#!/usr/bin/env bash
# Benchmark: engines that share their state in Postgres and their files in S3 (`pipeline serve
# --state postgres://… --store s3://…`) against one engine on its data folder, side by side in
# one run: (A) one engine on its data folder, the baseline; (B) one engine on Postgres + S3;
# (C) three engines on Postgres + S3 behind nginx (round robin). For each: a tus upload (MB/s),
# small /image/resize Assemblies from several clients (create-to-completed p50 and p95),
# /http/import Assemblies that wait on a slow server (where three engines should beat one),
# and for B and C the S3 requests per upload and the database round trips per PATCH.
# See bench/README.md.
#
# Environment:
#   UPLOAD_MIB=512    size of the tus upload in MiB
#   CHUNK_MIB=16      size of each PATCH in MiB
#   SOLO=30           /image/resize Assemblies one after another (one client): the latency
#   ASSEMBLIES=200    /image/resize Assemblies per setup from several clients
#   CLIENTS=8         clients running them at once
#   IMPORTS=24        /http/import Assemblies per setup, all created at once
#   DELAY_MS=500      how long the import server waits before each answer
#   RUNS=3            runs of every setup, taken in turn (each measure: the best run)
#   SETUPS="A B C"    the setups to run (A is the baseline of the ratios)
#   BENCH_DIR=/tmp    where the temporary folder is made
#   PIPELINE_BIN=...  binary to test; when unset, the release binary is built as installed
#                     (Swift's libraries linked in, .build/static)
#   SWIFT=swift       Swift driver used for that build
#   KEEP=1            keep the temporary folder (logs of every server included)
#   STRICT=1          exit 3 when a target is missed
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

UPLOAD_MIB=${UPLOAD_MIB:-512}
CHUNK_MIB=${CHUNK_MIB:-16}
SOLO=${SOLO:-30}
ASSEMBLIES=${ASSEMBLIES:-200}
CLIENTS=${CLIENTS:-8}
IMPORTS=${IMPORTS:-24}
DELAY_MS=${DELAY_MS:-500}
RUNS=${RUNS:-3}
read -ra setups <<<"${SETUPS:-A B C}"
IMPORT_BYTES=65536    # what the slow server answers each import with
IMAGE=400x300         # the resized PNG
BOX=100x100           # thumbnails fit this box
IDLE_SECONDS=2        # how long the idle database round trips are counted
BUCKET=bench
for value in "$UPLOAD_MIB" "$CHUNK_MIB" "$SOLO" "$ASSEMBLIES" "$CLIENTS" "$IMPORTS" "$DELAY_MS" "$RUNS"; do
    [[ $value =~ ^[0-9]+$ ]] || { echo "shared.sh: UPLOAD_MIB, CHUNK_MIB, SOLO, ASSEMBLIES, CLIENTS, IMPORTS, DELAY_MS and RUNS must be whole numbers" >&2; exit 2; }
done
((UPLOAD_MIB >= 1 && CHUNK_MIB >= 1 && SOLO >= 1 && ASSEMBLIES >= 1 && CLIENTS >= 1 && IMPORTS >= 1 && RUNS >= 1)) ||
    { echo "shared.sh: UPLOAD_MIB, CHUNK_MIB, SOLO, ASSEMBLIES, CLIENTS, IMPORTS and RUNS must be at least 1" >&2; exit 2; }
shares=0
for setup in "${setups[@]}"; do
    case $setup in
        A) ;;
        B | C) shares=1 ;;
        *) echo "shared.sh: SETUPS takes A, B and C, not '$setup'" >&2; exit 2 ;;
    esac
done

helper=(python3 -S "$repo/bench/shared.py")
measure=(python3 -S "$repo/bench/measure.py")
venv_python=$repo/.venv/bin/python
fixtures=$repo/Tests/HTTPClientTests/Fixtures
nginx=/usr/sbin/nginx
pg_bin=
for folder in /usr/lib/postgresql/*/bin; do
    [[ -x $folder/initdb ]] && pg_bin=$folder   # the glob sorts 15 before 16: the newest wins
done
if ((shares)); then
    [[ -n $pg_bin ]] || { echo "shared.sh: Postgres is not installed (apt-get install postgresql-15)" >&2; exit 2; }
    [[ -x $repo/.venv/bin/weed ]] || { echo "shared.sh: weed is missing from .venv (run scripts/setup.sh)" >&2; exit 2; }
    if [[ " ${setups[*]} " == *" C "* ]]; then
        [[ -x $nginx ]] || { echo "shared.sh: nginx is not installed (scripts/setup.sh installs nginx-light)" >&2; exit 2; }
    fi
    if ((EUID == 0)); then
        id postgres >/dev/null 2>&1 || { echo "shared.sh: there is no postgres user (postgresql-15 makes it)" >&2; exit 2; }
    fi
fi

# ------------------------------------------------- binary and machine facts
script=shared.sh
source "$repo/bench/lib.sh"
find_binary
"$bin" serve --help 2>/dev/null | grep -q -- '--state' ||
    { echo "shared.sh: $bin has no 'serve --state' (rebuild it)" >&2; exit 2; }
machine_facts
echo "python:  $(python3 --version 2>&1)"
if ((shares)); then
    echo "postgres: $("$pg_bin/postgres" --version) (fsync and synchronous_commit on, the defaults)"
    echo "s3:      SeaweedFS $("$repo/.venv/bin/weed" version 2>/dev/null | head -n1 | sed 's/^version //') (weed mini), behind the request-logging proxy"
    if [[ " ${setups[*]} " == *" C "* ]]; then
        echo "nginx:   $("$nginx" -v 2>&1 | sed 's/^nginx version: //') (round robin, no buffering)"
    fi
fi
echo "load:    ${UPLOAD_MIB} MiB upload in ${CHUNK_MIB} MiB PATCHes; $SOLO resize Assemblies in a row, $ASSEMBLIES from $CLIENTS clients; $IMPORTS imports at once, ${DELAY_MS} ms each; $RUNS runs"

# ------------------------------------------------------------ work folder
mkdir -p "${BENCH_DIR:-/tmp}"
work=$(mktemp -d "${BENCH_DIR:-/tmp}/pipeline-shared.XXXXXX")
# Postgres runs as its own user when this is root: it must reach its folder inside.
chmod 711 "$work"
results=$work/results.jsonl
: >"$results"
engine_pids=()
nginx_pid=
slow_pid=
s3_pid=
proxy_pid=
pg_pid=
stop_engines() {
    stop_pid "$nginx_pid"
    nginx_pid=
    for pid in ${engine_pids[@]+"${engine_pids[@]}"}; do stop_pid "$pid"; done
    engine_pids=()
}
# stop_postgres: SIGINT, Postgres' fast shutdown; SIGKILL after 20 s.
stop_postgres() {
    [[ -n $pg_pid ]] || return 0
    kill -INT "$pg_pid" 2>/dev/null || true
    for ((i = 0; i < 200; i++)); do
        kill -0 "$pg_pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pg_pid" 2>/dev/null || true
    wait "$pg_pid" 2>/dev/null || true
    pg_pid=
}
cleanup() {
    trap '' INT TERM
    stop_engines
    stop_pid "$slow_pid"
    stop_pid "$proxy_pid"
    stop_pid "$s3_pid"
    stop_postgres
    if [[ ${KEEP:-} == 1 ]]; then
        echo "shared.sh: kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
# Turn signals into an exit, so the EXIT trap stops what runs.
trap 'exit 130' INT
trap 'exit 143' TERM

echo
echo "== data: a $UPLOAD_MIB MiB file of random bytes and a ${IMAGE} PNG"
upload_file=$work/upload.bin
upload_sha=$("${helper[@]}" gen-file "$upload_file" --mib "$UPLOAD_MIB")
"${measure[@]}" gen-png "$work/image.png" --width "${IMAGE%x*}" --height "${IMAGE#*x}"
echo "upload.bin sha256 $upload_sha; image.png $(wc -c <"$work/image.png" | tr -d ' ') bytes"

# ---------------------------------------------------------------- servers
# wait_answers URL WHAT PID: until URL answers (any HTTP status), 30 s at most.
wait_answers() {
    for ((i = 0; i < 300; i++)); do
        curl -s -o /dev/null --max-time 2 "$1" && return 0
        kill -0 "$3" 2>/dev/null || { echo "shared.sh: $2 exited" >&2; exit 2; }
        sleep 0.1
    done
    echo "shared.sh: $2 does not answer at $1" >&2
    exit 2
}

echo
echo "== servers on 127.0.0.1"
"${helper[@]}" slow-server --delay-ms "$DELAY_MS" --bytes "$IMPORT_BYTES" >"$work/slow.out" 2>"$work/slow.err" &
slow_pid=$!
slow_port=$(wait_for_line "$slow_pid" "$work/slow.out" 's/^PORT \([0-9][0-9]*\)$/\1/p' "the import server")
echo "import server: http://127.0.0.1:$slow_port (answers after $DELAY_MS ms; pid $slow_pid)"

if ((shares)); then
    # As root, Postgres runs as the postgres user; setpriv execs it, so $! is the server itself.
    as_postgres=()
    ((EUID != 0)) || as_postgres=(setpriv --reuid=postgres --regid=postgres --init-groups --)
    mkdir -p "$work/postgres"
    ((EUID != 0)) || chown postgres:postgres "$work/postgres"
    started=$EPOCHREALTIME
    ${as_postgres[@]+"${as_postgres[@]}"} "$pg_bin/initdb" -D "$work/postgres/data" -U postgres -A trust -E UTF8 --locale=C --no-instructions \
        >"$work/initdb.log" 2>&1 || { cat "$work/initdb.log" >&2; echo "shared.sh: initdb failed" >&2; exit 2; }
    pg_port=$("${helper[@]}" free-port)
    ${as_postgres[@]+"${as_postgres[@]}"} "$pg_bin/postgres" -D "$work/postgres/data" -p "$pg_port" -k "$work/postgres" \
        -c listen_addresses=127.0.0.1 -c max_connections=100 >"$work/postgres.log" 2>&1 &
    pg_pid=$!
    # Ready once postmaster.pid says so on its eighth line (what pg_ctl -w waits for).
    for ((i = 0; i < 600; i++)); do
        [[ $(sed -n 8p "$work/postgres/data/postmaster.pid" 2>/dev/null | tr -d ' ') == ready ]] && break
        kill -0 "$pg_pid" 2>/dev/null || { cat "$work/postgres.log" >&2; echo "shared.sh: postgres exited" >&2; exit 2; }
        sleep 0.1
    done
    [[ $(sed -n 8p "$work/postgres/data/postmaster.pid" 2>/dev/null | tr -d ' ') == ready ]] ||
        { cat "$work/postgres.log" >&2; echo "shared.sh: postgres was not ready within 60 s" >&2; exit 2; }
    echo "postgres: 127.0.0.1:$pg_port (pid $pg_pid; initdb and start in $(awk -v a="$EPOCHREALTIME" -v b="$started" 'BEGIN { printf "%.1f", a - b }') s)"

    # A key and secret for this run only; the engines read them from the environment.
    export AWS_ACCESS_KEY_ID=bench
    AWS_SECRET_ACCESS_KEY=$(python3 -c 'import secrets; print(secrets.token_hex(20))')
    export AWS_SECRET_ACCESS_KEY
    started=$EPOCHREALTIME
    "$venv_python" "$fixtures/s3_server.py" weed "$work/s3" "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" "$BUCKET" \
        >"$work/s3.out" 2>"$work/s3.err" &
    s3_pid=$!
    s3_port=
    for ((i = 0; i < 900; i++)); do
        s3_port=$(sed -n 's/^PORT \([0-9][0-9]*\)$/\1/p' "$work/s3.out" 2>/dev/null || true)
        [[ -n $s3_port ]] && break
        kill -0 "$s3_pid" 2>/dev/null || { cat "$work/s3.err" >&2; echo "shared.sh: weed mini did not start" >&2; exit 2; }
        sleep 0.1
    done
    [[ -n $s3_port ]] || { echo "shared.sh: weed mini did not answer within 90 s" >&2; exit 2; }
    echo "weed mini: S3 at 127.0.0.1:$s3_port, bucket $BUCKET (pid $s3_pid; started in $(awk -v a="$EPOCHREALTIME" -v b="$started" 'BEGIN { printf "%.1f", a - b }') s)"
    # The proxy logs every request it forwards, one line each on its standard error.
    python3 "$fixtures/s3_fault_proxy.py" "$s3_port" >"$work/proxy.out" 2>"$work/proxy.log" &
    proxy_pid=$!
    proxy_port=$(wait_for_line "$proxy_pid" "$work/proxy.out" 's/^PORT \([0-9][0-9]*\)$/\1/p' "the S3 proxy")
    echo "S3 proxy: 127.0.0.1:$proxy_port (pid $proxy_pid)"
fi

# start_serve NAME DATA-DIR [ARG...]: starts `pipeline serve` on a free port; its pid joins
# `engine_pids`, its port is `port`.
start_serve() {
    local name=$1 data=$2
    shift 2
    mkdir -p "$data"
    "$bin" serve --host 127.0.0.1 --port 0 --data-dir "$data" --quiet --allow-loopback-import "$@" \
        >"$work/$name.out" 2>"$work/$name.err" &
    engine_pids+=($!)
    port=$(wait_for_line "$!" "$work/$name.out" 's|^pipeline serve: listening on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "pipeline serve ($name)")
}

# start_nginx PORT UPSTREAM-PORT...: nginx on PORT, round robin over the upstreams, bodies and
# answers passed on as they come; sets `nginx_pid`.
start_nginx() {
    local listen=$1 root=$work/nginx upstreams=
    shift
    mkdir -p "$root"
    for upstream in "$@"; do upstreams+="server 127.0.0.1:$upstream; "; done
    cat >"$root/nginx.conf" <<EOF
$( ((EUID == 0)) && echo "user root;")
worker_processes 1;
daemon off;
master_process off;
pid $root/nginx.pid;
error_log $root/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $root/body;
    proxy_temp_path $root/proxy;
    fastcgi_temp_path $root/fastcgi;
    uwsgi_temp_path $root/uwsgi;
    scgi_temp_path $root/scgi;
    upstream engines { $upstreams}
    server {
        listen 127.0.0.1:$listen;
        client_max_body_size 0;
        location / {
            proxy_pass http://engines;
            proxy_set_header Host \$http_host;
            proxy_http_version 1.1;
            proxy_request_buffering off;
            proxy_buffering off;
            proxy_read_timeout 120s;
        }
    }
}
EOF
    "$nginx" -p "$root" -c "$root/nginx.conf" -e "$root/error.log" </dev/null >"$work/nginx.out" 2>&1 &
    nginx_pid=$!
    wait_answers "http://127.0.0.1:$listen/healthz" nginx "$nginx_pid"
}

# Per setup: the origin clients use, the S3 prefix of its files (none for A), its engines'
# /metrics and its own processes (for the CPU they use).
declare -A origin prefix metrics processes
for setup in "${setups[@]}"; do
    case $setup in
        A)
            start_serve a "$work/a"
            origin[A]=http://127.0.0.1:$port
            prefix[A]=
            processes[A]=${engine_pids[-1]}
            echo "A: one engine on its data folder at ${origin[A]} (pid ${engine_pids[-1]})"
            ;;
        B)
            ${as_postgres[@]+"${as_postgres[@]}"} "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres bench_b
            start_serve b "$work/b" --state "postgres://postgres@127.0.0.1:$pg_port/bench_b" \
                --store "s3://$BUCKET/b?endpoint=http://127.0.0.1:$proxy_port"
            origin[B]=http://127.0.0.1:$port
            prefix[B]=b
            metrics[B]=http://127.0.0.1:$port/metrics
            processes[B]=${engine_pids[-1]}
            echo "B: one engine on Postgres (database bench_b) + S3 (s3://$BUCKET/b) at ${origin[B]} (pid ${engine_pids[-1]})"
            ;;
        C)
            ${as_postgres[@]+"${as_postgres[@]}"} "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres bench_c
            front=$("${helper[@]}" free-port)
            ports=()
            for n in 1 2 3; do
                start_serve "c$n" "$work/c$n" --state "postgres://postgres@127.0.0.1:$pg_port/bench_c" \
                    --store "s3://$BUCKET/c?endpoint=http://127.0.0.1:$proxy_port" --public-url "http://127.0.0.1:$front"
                ports+=("$port")
                metrics[C]+=" http://127.0.0.1:$port/metrics"
                processes[C]+=" ${engine_pids[-1]}"
            done
            start_nginx "$front" "${ports[@]}"
            origin[C]=http://127.0.0.1:$front
            prefix[C]=c
            echo "C: three engines on Postgres (database bench_c) + S3 (s3://$BUCKET/c) at ports ${ports[*]} (pids${processes[C]}),"
            echo "   behind nginx at ${origin[C]} (pid $nginx_pid)"
            ;;
    esac
done

# count_round_trips SETUP: the database round trips of the setup's engines so far.
count_round_trips() {
    local urls
    read -ra urls <<<"${metrics[$1]}"
    "${helper[@]}" round-trips "${urls[@]}"
}

# cpu_now SETUP: CPU seconds so far of the setup's engines, Postgres (the server and its
# backends), the S3 server, the S3 proxy and nginx, tab-separated.
cpu_now() {
    local pg_all= weed=
    if ((shares)); then
        pg_all="$pg_pid $(pgrep -P "$pg_pid" | tr '\n' ' ')"
        weed=$(pgrep -P "$s3_pid" | tr '\n' ' ')
    fi
    local engines
    read -ra engines <<<"${processes[$1]}"
    printf '%s\t%s\t%s\t%s\t%s\n' "$("${helper[@]}" cpu "${engines[@]}")" "$("${helper[@]}" cpu $pg_all)" \
        "$("${helper[@]}" cpu $weed)" "$("${helper[@]}" cpu ${proxy_pid:-})" "$("${helper[@]}" cpu ${nginx_pid:-})"
}

# record_cpu SETUP PHASE BEFORE: records the CPU each part the setup uses took since BEFORE
# (from cpu_now).
record_cpu() {
    local after names=(engines postgres s3 proxy nginx) parts=1 i
    [[ $1 == B ]] && parts=4
    [[ $1 == C ]] && parts=5
    after=$(cpu_now "$1")
    IFS=$'\t' read -ra was <<<"$3"
    IFS=$'\t' read -ra now <<<"$after"
    for ((i = 0; i < parts; i++)); do
        "${helper[@]}" record --setup "$1" --results "$results" "cpu_$2_${names[$i]}" \
            "$(awk -v a="${now[$i]}" -v b="${was[$i]}" 'BEGIN { print a - b }')"
    done
}

# measure_setup SETUP RUN: the three loads against the setup; with shared state, the database
# round trips and the S3 requests too.
measure_setup() {
    local setup=$1 run=$2 at=${origin[$1]} shared=${prefix[$1]} before after lines id stored kinds cpu
    local record=("${helper[@]}" record --setup "$setup" --results "$results")
    if [[ -n $shared ]]; then
        before=$(count_round_trips "$setup")
        lines=$(wc -l <"$work/proxy.log")
    fi
    cpu=$(cpu_now "$setup")
    id=$("${helper[@]}" upload "$at" "$upload_file" --chunk-mib "$CHUNK_MIB" --setup "$setup" --results "$results")
    record_cpu "$setup" upload "$cpu"
    if [[ -n $shared ]]; then
        after=$(count_round_trips "$setup")
        "${record[@]}" upload_round_trips "$((after - before))"
        kinds=$("${helper[@]}" s3-requests "$work/proxy.log" --skip "$lines")
        "${record[@]}" upload_s3_requests "${kinds%% *}"
        echo "$setup: the upload took $((after - before)) database round trips and ${kinds%% *} S3 requests (${kinds#* })"
        if ((run == 1)); then
            stored=$("${helper[@]}" s3-digest "http://127.0.0.1:$s3_port" "$BUCKET" "$shared/tus/$id")
            [[ $stored == "$((UPLOAD_MIB * 1048576)) $upload_sha" ]] ||
                { echo "shared.sh: FAIL: s3://$BUCKET/$shared/tus/$id is '$stored', expected $((UPLOAD_MIB * 1048576)) bytes with sha256 $upload_sha" >&2; exit 1; }
            echo "verified: s3://$BUCKET/$shared/tus/$id holds the file byte for byte (sha256)"
        fi
    else
        if ((run == 1)); then
            cmp "$work/a/uploads/$id.bin" "$upload_file" ||
                { echo "shared.sh: FAIL: the engine stored a different file at a/uploads/$id.bin" >&2; exit 1; }
            echo "verified: a/uploads/$id.bin is the file byte for byte"
        fi
        rm -f "$work/a/uploads/$id.bin"
    fi
    "${helper[@]}" assemblies "$at" "$work/image.png" --count "$SOLO" --clients 1 --box "$BOX" --key solo \
        --setup "$setup" --results "$results"
    if [[ -n $shared ]]; then
        before=$(count_round_trips "$setup")
        lines=$(wc -l <"$work/proxy.log")
    fi
    cpu=$(cpu_now "$setup")
    "${helper[@]}" assemblies "$at" "$work/image.png" --count "$ASSEMBLIES" --clients "$CLIENTS" --box "$BOX" \
        --setup "$setup" --results "$results"
    record_cpu "$setup" assemblies "$cpu"
    if [[ -n $shared ]]; then
        after=$(count_round_trips "$setup")
        "${record[@]}" assemblies_round_trips "$((after - before))"
        kinds=$("${helper[@]}" s3-requests "$work/proxy.log" --skip "$lines")
        "${record[@]}" assemblies_s3_requests "${kinds%% *}"
        echo "$setup: the resize Assemblies took $((after - before)) database round trips and ${kinds%% *} S3 requests (${kinds#* })"
    fi
    "${helper[@]}" imports "$at" "http://127.0.0.1:$slow_port/file.bin" --count "$IMPORTS" --bytes "$IMPORT_BYTES" \
        --setup "$setup" --results "$results"
}

# -------------------------------------------------------------------- runs
for setup in "${setups[@]}"; do
    [[ -n ${prefix[$setup]} ]] || continue
    before=$(count_round_trips "$setup")
    sleep "$IDLE_SECONDS"
    after=$(count_round_trips "$setup")
    "${helper[@]}" record --setup "$setup" --results "$results" idle_round_trips_per_second \
        "$(awk -v a="$after" -v b="$before" -v s="$IDLE_SECONDS" 'BEGIN { print (a - b) / s }')"
done
for ((run = 1; run <= RUNS; run++)); do
    if ((shares)); then
        echo
        echo "== run $run: the S3 server alone"
        "${helper[@]}" s3-put "http://127.0.0.1:$proxy_port" "$BUCKET" "alone-$run" "$upload_file" --part-mib 5 \
            --setup S3 --results "$results"
    fi
    for setup in "${setups[@]}"; do
        echo
        echo "== run $run: $setup"
        measure_setup "$setup" "$run"
    done
done
for pid in "${engine_pids[@]}" ${nginx_pid:+"$nginx_pid"}; do
    kill -0 "$pid" 2>/dev/null || { echo "shared.sh: process $pid (an engine or nginx) exited during the run (see the .err files in $work)" >&2; KEEP=1; exit 1; }
done
stop_engines

# ----------------------------------------------------------------- report
echo
echo "== results"
"${helper[@]}" report "$results" --upload-mib "$UPLOAD_MIB" --chunk-mib "$CHUNK_MIB" --solo "$SOLO" \
    --count "$ASSEMBLIES" --clients "$CLIENTS" --imports "$IMPORTS" --delay-ms "$DELAY_MS" --runs "$RUNS"
