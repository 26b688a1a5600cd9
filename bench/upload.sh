#!/usr/bin/env bash
# Benchmark: `pipeline upload` of one 1 GiB file to a local tus server
# (litestar-tus) next to `curl -T` and tuspy, and 1,000 small files with
# --parallel 8 next to tuspy uploading them one after another.
# See bench/README.md.
#
# Environment:
#   BIG_MIB=1024      size of the big file in MiB (0 skips that case)
#   SMALL_FILES=1000  number of 10 KB files (0 skips that case)
#   RUNS=3            runs per command (best time, largest peak memory)
#   SERVER=litestar   the tus server: litestar (litestar-tus, Python) or engine
#                     (`pipeline serve`, which keeps up with the fastest client)
#   HANDOFF=0         with SERVER=engine, 1 lets pipeline upload hand files to
#                     the engine as open descriptors (docs/engine.md)
#   BENCH_DIR=/tmp    where the temporary data folder is made
#   PIPELINE_BIN=...  binary to test; when unset, the release binary is built as
#                     installed (Swift's libraries linked in, .build/static)
#   SWIFT=swift       Swift driver used for that build
#   KEEP=1            keep the data folder instead of removing it
#   STRICT=1          exit 3 when a target is missed
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

BIG_MIB=${BIG_MIB:-1024}
SMALL_FILES=${SMALL_FILES:-1000}
RUNS=${RUNS:-3}
SMALL_BYTES=10000     # 10 KB (10^3 bytes) per small file
PARALLEL=8            # pipeline --parallel for the small files
TUSPY_CHUNK_MIB=64    # tuspy chunk size for the big file
# -S skips site imports: a smaller measuring process means a lower memory
# floor for the children it measures (see bench/measure.py).
measure=(python3 -S "$repo/bench/measure.py")
tus_python=$repo/.venv-tus/bin/python
tus_server=$repo/Tests/APIClientsTests/Tus/Fixtures/litestar_tus_server.py
tuspy_python=$repo/.venv/bin/python

for value in "$BIG_MIB" "$SMALL_FILES" "$RUNS"; do
    [[ $value =~ ^[0-9]+$ ]] || { echo "upload.sh: BIG_MIB, SMALL_FILES and RUNS must be whole numbers" >&2; exit 2; }
done
((RUNS >= 1)) || { echo "upload.sh: RUNS must be at least 1" >&2; exit 2; }

command -v curl >/dev/null 2>&1 || { echo "upload.sh: curl is not installed (run scripts/setup.sh)" >&2; exit 2; }
command -v cmp >/dev/null 2>&1 || { echo "upload.sh: cmp is not installed" >&2; exit 2; }
[[ -x $tus_python ]] || { echo "upload.sh: $tus_python is missing (run scripts/setup.sh)" >&2; exit 2; }
[[ -x $tuspy_python ]] || { echo "upload.sh: $tuspy_python is missing (run scripts/setup.sh)" >&2; exit 2; }
"$tuspy_python" -c 'import tusclient' 2>/dev/null ||
    { echo "upload.sh: tuspy is not installed in .venv (run scripts/setup.sh)" >&2; exit 2; }

# ------------------------------------------------- binary and machine facts
script=upload.sh
source "$repo/bench/lib.sh"
find_binary
machine_facts
if [[ ${SERVER:-litestar} == engine ]]; then
    echo "server:  pipeline serve (the same binary)"
else
    echo "server:  litestar-tus $("$tus_python" -c 'from importlib.metadata import version; print(version("litestar-tus"))' 2>/dev/null || echo '?') ($("$tus_python" --version 2>&1))"
fi
echo "curl:    $(curl --version | head -n1 | cut -d' ' -f1-2)"
echo "tuspy:   $("$tuspy_python" -c 'from importlib.metadata import version; print(version("tuspy"))' 2>/dev/null || echo '?') ($("$tuspy_python" --version 2>&1))"

# ------------------------------------------------------------------- data
mkdir -p "${BENCH_DIR:-/tmp}"
work=$(mktemp -d "${BENCH_DIR:-/tmp}/pipeline-upload-bench.XXXXXX")
server_pid=
stop_server() { stop_pid "$server_pid"; server_pid=; }
cleanup() {
    stop_server
    if [[ ${KEEP:-} == 1 ]]; then
        echo "upload.sh: kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
# Turn signals into an exit, so the EXIT trap stops the server.
trap 'exit 130' INT
trap 'exit 143' TERM

data=$work/data
out=$work/out
store=$work/store
state=$work/state
mkdir -p "$data" "$out" "$store" "$state"

echo
echo "== generating a $BIG_MIB MiB file and $SMALL_FILES files of $SMALL_BYTES bytes in $data"
start=$(date +%s)
if ((BIG_MIB > 0)); then
    "${measure[@]}" gen "$data" --files 0 --big-mib "$BIG_MIB"
fi
if ((SMALL_FILES > 0)); then
    "${measure[@]}" gen-blobs "$data/small" --count "$SMALL_FILES" --size "$SMALL_BYTES"
fi
echo "generated in $(($(date +%s) - start)) s"
big_bytes=$((BIG_MIB * 1024 * 1024))

# The tuspy side: one process, one TusClient, the files one after another.
cat >"$work/tuspy_upload.py" <<'PY'
"""tuspy_upload.py ENDPOINT CHUNK_BYTES FILE...: upload each FILE with tuspy,
one after another. CHUNK_BYTES 0 keeps tuspy's default chunk size."""
import os
import sys

from tusclient import client

endpoint, chunk = sys.argv[1], int(sys.argv[2])
tus = client.TusClient(endpoint)
for path in sys.argv[3:]:
    options = {"metadata": {"filename": os.path.basename(path),
                            "filetype": "application/octet-stream"}}
    if chunk > 0:
        options["chunk_size"] = chunk
    tus.uploader(path, **options).upload()
PY

# ----------------------------------------------------------------- server
echo
if [[ ${SERVER:-litestar} == engine ]]; then
    # The engine of `pipeline serve`: a server fast enough that the clients, not it, set the pace.
    # Without the same-machine handoff, which would let pipeline upload skip the wire that curl
    # and tuspy are measured on (HANDOFF=1 measures it instead).
    echo "== starting pipeline serve on 127.0.0.1"
    store=$work/engine/uploads
    handoff=(--no-handoff)
    [[ ${HANDOFF:-0} == 1 ]] && handoff=()
    "$bin" serve --port 0 --data-dir "$work/engine" --quiet "${handoff[@]}" >"$work/server.out" 2>"$work/server.err" &
    port_pattern='s/^pipeline serve: listening on http:\/\/127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p'
    tus_path=/resumable/files/
else
    echo "== starting litestar-tus on 127.0.0.1"
    "$tus_python" "$tus_server" "$store" >"$work/server.out" 2>"$work/server.err" &
    port_pattern='s/^PORT \([0-9][0-9]*\)$/\1/p'
    tus_path=/files/
fi
server_pid=$!
port=$(wait_for_line "$server_pid" "$work/server.out" "$port_pattern" "the tus server")
mkdir -p "$store"
origin=http://127.0.0.1:$port
endpoint=$origin$tus_path
echo "endpoint: $endpoint (pid $server_pid)"

cd "$data"

# Caches cannot be dropped without root, so warm them instead: every client
# then reads the data from the page cache.
echo
echo "== warming the page cache (one read of all data; every client runs warm)"
if ((BIG_MIB > 0)); then
    cat big/big.bin >/dev/null
fi
small=()
if ((SMALL_FILES > 0)); then
    small=(small/*.bin)
    cat "${small[@]}" >/dev/null
fi

# -------------------------------------------------------------- measuring
results=$out/results.tsv
: >"$results"

measure_once() {
    # Each measurement runs in its own measure.py process, so the peak
    # memory it reports belongs to that command alone.
    "${measure[@]}" run --name "$@" | tee -a "$results"
}

clear_store() {
    find "$store" -mindepth 1 -delete
}

# check_store COUNT SIZE: the store holds COUNT complete uploads of SIZE
# bytes; prints their paths.
check_store() {
    "${measure[@]}" stored "$store" --count "$1" --size "$2" ||
        { echo "upload.sh: FAIL: the uploads in the store are wrong (see above)" >&2; exit 1; }
}

# The stored copy of the big file must equal the source byte for byte.
check_big_copy() {
    local copy
    copy=$(check_store 1 "$big_bytes")
    cmp "$copy" big/big.bin ||
        { echo "upload.sh: FAIL: $1 stored a different file (see above)" >&2; exit 1; }
    echo "verified: $1 stored a byte-identical copy of big/big.bin"
}

b64() { printf %s "$1" | base64 | tr -d '\n'; }

# Creates an upload with a POST and prints its URL (for curl's PATCH).
create_upload() {
    local location
    location=$(curl -sS -f -D - -o /dev/null -X POST \
        -H 'Tus-Resumable: 1.0.0' \
        -H "Upload-Length: $1" \
        -H "Upload-Metadata: filename $(b64 "$(basename "$2")"),filetype $(b64 application/octet-stream)" \
        "$endpoint" | tr -d '\r' | sed -n 's/^[Ll][Oo][Cc][Aa][Tt][Ii][Oo][Nn]: *//p')
    [[ -n $location ]] || { echo "upload.sh: the creation POST returned no Location" >&2; exit 1; }
    case $location in
        http://* | https://*) echo "$location" ;;
        /*) echo "$origin$location" ;;
        *) echo "$endpoint$location" ;;
    esac
}

pipeline_upload() {
    # pipeline_upload RUN-NAME FILE... [OPTION...]: a fresh --state-dir per run.
    local name=$1
    shift
    rm -rf "$state/$name"
    measure_once "$name" -- "$bin" upload "$@" --endpoint "$endpoint" \
        --state-dir "$state/$name" --quiet
}

echo
echo "== measuring ($RUNS runs each; name, seconds, peak MB)"
for ((run = 1; run <= RUNS; run++)); do
    if ((BIG_MIB > 0)); then
        clear_store
        pipeline_upload big-pipeline-off big/big.bin --checksum off
        if ((run == 1)); then check_big_copy "pipeline --checksum off"; else check_store 1 "$big_bytes" >/dev/null; fi

        clear_store
        pipeline_upload big-pipeline-auto big/big.bin
        if ((run == 1)); then check_big_copy "pipeline --checksum auto"; else check_store 1 "$big_bytes" >/dev/null; fi

        clear_store
        url=$(create_upload "$big_bytes" big/big.bin)
        measure_once big-curl -- curl -sS -f -o /dev/null -X PATCH -T big/big.bin \
            -H 'Tus-Resumable: 1.0.0' -H 'Upload-Offset: 0' \
            -H 'Content-Type: application/offset+octet-stream' "$url"
        check_store 1 "$big_bytes" >/dev/null

        clear_store
        measure_once big-tuspy -- "$tuspy_python" "$work/tuspy_upload.py" "$endpoint" \
            $((TUSPY_CHUNK_MIB * 1024 * 1024)) big/big.bin
        check_store 1 "$big_bytes" >/dev/null
    fi
    if ((SMALL_FILES > 0)); then
        clear_store
        pipeline_upload small-pipeline "${small[@]}" --parallel "$PARALLEL"
        check_store "$SMALL_FILES" "$SMALL_BYTES" >/dev/null

        clear_store
        measure_once small-tuspy -- "$tuspy_python" "$work/tuspy_upload.py" "$endpoint" 0 "${small[@]}"
        check_store "$SMALL_FILES" "$SMALL_BYTES" >/dev/null
    fi
done
clear_store

# ----------------------------------------------------------------- report
echo
echo "== results"
"${measure[@]}" upload-report "$results" --big-mib "$BIG_MIB" --small-files "$SMALL_FILES" \
    --small-bytes "$SMALL_BYTES" --tuspy-chunk-mib "$TUSPY_CHUNK_MIB" --parallel "$PARALLEL"
