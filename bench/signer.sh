#!/usr/bin/env bash
# Benchmark: the signing backend `pipeline signer`. Signatures per second and
# p50/p99 latency under concurrent load from wrk (a local HTTP load
# generator), once with a static token and once with an RS256 JWT, plus the
# signer's peak memory. See bench/README.md.
#
# Environment:
#   DURATION=10s      length of each wrk run (wrk's -d: 30s, 2m, ...)
#   THREADS=2         wrk threads (-t)
#   CONNECTIONS=16    open connections (-c), shared by the threads
#   RUNS=3            wrk runs per case (the table shows the fastest run);
#                     2 x RUNS x DURATION must stay within 25 minutes
#   BENCH_DIR=/tmp    where the temporary data folder is made
#   PIPELINE_BIN=...  binary to test; when unset, the release binary is built as
#                     installed (Swift's libraries linked in, .build/static)
#   SWIFT=swift       Swift driver used for that build
#   KEEP=1            keep the data folder (wrk's raw output is in out/)
#   AUDIT=1           run the signer with --audit-log (one JSON line a request)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

DURATION=${DURATION:-10s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-16}
RUNS=${RUNS:-3}
AUTH_KEY=bench-key
ISSUER=https://issuer.example
AUDIENCE=pipeline-signer

for value in "$THREADS" "$CONNECTIONS" "$RUNS"; do
    [[ $value =~ ^[0-9]+$ ]] || { echo "signer.sh: THREADS, CONNECTIONS and RUNS must be whole numbers" >&2; exit 2; }
done
((RUNS >= 1 && THREADS >= 1)) || { echo "signer.sh: RUNS and THREADS must be at least 1" >&2; exit 2; }
((CONNECTIONS >= THREADS)) || { echo "signer.sh: CONNECTIONS must be at least THREADS (wrk needs a connection per thread)" >&2; exit 2; }
[[ $DURATION =~ ^[0-9]+[smh]?$ && ! $DURATION =~ ^0+[smh]?$ ]] ||
    { echo "signer.sh: DURATION must be a positive wrk duration such as 10s or 2m" >&2; exit 2; }
case $DURATION in
    *h) seconds=$((10#${DURATION%h} * 3600)) ;;
    *m) seconds=$((10#${DURATION%m} * 60)) ;;
    *s) seconds=$((10#${DURATION%s})) ;;
    *) seconds=$((10#$DURATION)) ;;
esac
# The signed params expire 30 minutes after the script starts.
((2 * RUNS * seconds <= 1500)) ||
    { echo "signer.sh: 2 x RUNS x DURATION must stay within 25 minutes (the params expire after 30)" >&2; exit 2; }

if ! command -v wrk >/dev/null 2>&1; then
    echo "signer.sh: wrk is not installed; install it with: apt-get install wrk" >&2
    echo "signer.sh: (macOS: brew install wrk)" >&2
    exit 2
fi
for tool in curl openssl python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "signer.sh: $tool is not installed" >&2; exit 2; }
done

# ------------------------------------------------- binary and machine facts
script=signer.sh
source "$repo/bench/lib.sh"
find_binary
"$bin" signer --help >/dev/null 2>&1 ||
    { echo "signer.sh: $bin has no 'signer' command (rebuild it)" >&2; exit 2; }
machine_facts
echo "wrk:     $(wrk -v 2>&1 | head -n1 || true)"
echo "openssl: $(openssl version)"
echo "load:    wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency, $RUNS runs per case"

# ------------------------------------------------------------------- data
mkdir -p "${BENCH_DIR:-/tmp}"
work=$(mktemp -d "${BENCH_DIR:-/tmp}/pipeline-signer-bench.XXXXXX")
signer_pid=
stop_signer() { stop_pid "$signer_pid"; signer_pid=; }
cleanup() {
    stop_signer
    if [[ ${KEEP:-} == 1 ]]; then
        echo "signer.sh: kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
# Turn signals into an exit, so the EXIT trap stops the signer.
trap 'exit 130' INT
trap 'exit 143' TERM

out=$work/out
mkdir -p "$out"

echo
echo "== writing the policy, the callers file, an RSA key, its JWKS and a JWT in $work"
# Throwaway credentials: made fresh for every run of the script.
secret=bench-secret-$(openssl rand -hex 16)
static_token=bench-token-$(openssl rand -hex 24)

cat >"$work/policy.yml" <<EOF
version: 1
auth_key: $AUTH_KEY
max_expires_in: 1h
robots:
  /image/resize:
    width: {type: integer, min: 1, max: 4000}
EOF

cat >"$work/callers.yml" <<EOF
version: 1
callers:
  - name: bench
    token_sha256: $(printf %s "$static_token" | openssl dgst -sha256 -r | cut -d' ' -f1)
identities:
  - name: bench-ci
    claims: {repository: acme/site}
EOF

openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/jwt-key.pem" 2>/dev/null
modulus=$(openssl rsa -in "$work/jwt-key.pem" -noout -modulus | sed 's/^Modulus=//')

# The JWKS, and the JWT's signing input: base64url(header).base64url(claims).
# The JWT stays valid for an hour plus the benchmark's length (the signer
# allows 60 s of leeway on top).
python3 -S - "$modulus" "$work/jwks.json" "$work/jwt-input" "$ISSUER" "$AUDIENCE" <<'PY'
import base64, json, sys, time

def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

modulus, jwks_path, input_path, issuer, audience = sys.argv[1:]
with open(jwks_path, "w", encoding="utf-8") as handle:
    json.dump({"keys": [{"kty": "RSA", "kid": "k1", "use": "sig", "alg": "RS256",
                         "n": b64url(bytes.fromhex(modulus)), "e": "AQAB"}]}, handle)
now = int(time.time())
header = {"alg": "RS256", "typ": "JWT", "kid": "k1"}
claims = {"iss": issuer, "aud": audience, "sub": "repo:acme/site:ref:refs/heads/main",
          "repository": "acme/site", "iat": now, "exp": now + 6 * 3600}
compact = lambda value: json.dumps(value, separators=(",", ":")).encode()
with open(input_path, "w", encoding="ascii") as handle:
    handle.write(b64url(compact(header)) + "." + b64url(compact(claims)))
PY
openssl dgst -sha256 -sign "$work/jwt-key.pem" -out "$work/jwt-signature.bin" "$work/jwt-input"
jwt=$(cat "$work/jwt-input").$(python3 -S -c '
import base64, sys
with open(sys.argv[1], "rb") as handle:
    print(base64.urlsafe_b64encode(handle.read()).rstrip(b"=").decode())' "$work/jwt-signature.bin")

# The params to sign: expires 30 minutes from now, within max_expires_in. The
# signer has no reuse check, so every request signs the same params.
expires=$(python3 -S -c '
import datetime
now = datetime.datetime.now(datetime.timezone.utc)
print((now + datetime.timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M:%S.000Z"))')
params=$(printf '{"auth":{"key":"%s","expires":"%s"},"steps":{"thumb":{"robot":"/image/resize","use":":original","width":200}}}' \
    "$AUTH_KEY" "$expires")

# body.json is the POST body; one wrk script per case sets the method, the
# body and the headers (Lua strings with every unsafe byte as \ddd).
python3 -S - "$params" "$work/body.json" "$work/static.lua" "$static_token" "$work/jwt.lua" "$jwt" <<'PY'
import json, sys

params, body_path = sys.argv[1:3]
body = json.dumps({"params": params}, separators=(",", ":"))
with open(body_path, "w", encoding="utf-8") as handle:
    handle.write(body)

def lua_string(text):
    safe = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.:/,{}[]=+")
    return '"' + "".join(chr(b) if b in safe else f"\\{b:03d}" for b in text.encode()) + '"'

cases = sys.argv[3:]
for script_path, token in zip(cases[0::2], cases[1::2]):
    with open(script_path, "w", encoding="ascii") as handle:
        handle.write(f"""-- Written by bench/signer.sh: every request is the same POST /sign.
wrk.method = "POST"
wrk.body = {lua_string(body)}
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = {lua_string("Bearer " + token)}
""")
PY
echo "params:  $params"
echo "body:    $(wc -c <"$work/body.json" | tr -d ' ') bytes; JWT: $(printf %s "$jwt" | wc -c | tr -d ' ') bytes"

# ---------------------------------------------------------------- helpers
runs_tsv=$out/runs.tsv
: >"$runs_tsv"
peaks=()

# peak_mb PID: the process's peak resident set (VmHWM) in MB, or "?".
peak_mb() {
    awk '/^VmHWM:/ { printf "%.1f", $2 * 1024 / 1000000; found = 1 } END { if (!found) print "?" }' \
        "/proc/$1/status" 2>/dev/null || echo "?"
}

# start_signer NAME: starts `pipeline signer` on a free port of 127.0.0.1 with
# both kinds of callers; sets signer_pid and signer_origin.
start_signer() {
    local name=$1 audit=() port=
    if [[ ${AUDIT:-} == 1 ]]; then audit=(--audit-log "$work/audit-$name.jsonl"); fi
    echo
    echo "== starting pipeline signer on 127.0.0.1 for the $name case"
    TRANSLOADIT_SECRET=$secret "$bin" signer --policy "$work/policy.yml" --tokens "$work/callers.yml" \
        --jwks "$work/jwks.json" --issuer "$ISSUER" --audience "$AUDIENCE" \
        --host 127.0.0.1 --port 0 ${audit[@]+"${audit[@]}"} \
        >"$work/signer-$name.out" 2>"$work/signer-$name.err" &
    signer_pid=$!
    for ((i = 0; i < 300; i++)); do
        port=$(sed -n 's|^pipeline signer: listening on http://127\.0\.0\.1:\([0-9][0-9]*\)$|\1|p' "$work/signer-$name.out")
        [[ -n $port ]] && break
        if ! kill -0 "$signer_pid" 2>/dev/null; then
            cat "$work/signer-$name.err" >&2
            echo "signer.sh: pipeline signer exited before it was listening" >&2
            exit 2
        fi
        sleep 0.1
    done
    if [[ -z $port ]]; then
        cat "$work/signer-$name.err" >&2
        echo "signer.sh: pipeline signer did not print its port within 30 s" >&2
        exit 2
    fi
    signer_origin=http://127.0.0.1:$port
    echo "origin: $signer_origin (pid $signer_pid)"
}

# check_token NAME TOKEN: one POST /sign with curl must answer 200 with our
# params and their correct signature (HMAC-SHA384 with the Auth Secret).
check_token() {
    local name=$1 token=$2 status
    status=$(curl -sS -o "$out/check-$name.json" -w '%{http_code}' -X POST \
        -H 'Content-Type: application/json' -H "Authorization: Bearer $token" \
        --data-binary "@$work/body.json" "$signer_origin/sign") ||
        { echo "signer.sh: FAIL: curl could not reach $signer_origin/sign" >&2; exit 1; }
    if [[ $status != 200 ]]; then
        cat "$out/check-$name.json" >&2
        echo >&2
        echo "signer.sh: FAIL: the $name token got HTTP $status from POST /sign, expected 200" >&2
        exit 1
    fi
    BENCH_SECRET=$secret python3 -S - "$out/check-$name.json" "$params" "$name" <<'PY'
import hashlib, hmac, json, os, sys

path, params, name = sys.argv[1:]
with open(path, encoding="utf-8") as handle:
    answer = json.load(handle)
expected = "sha384:" + hmac.new(os.environ["BENCH_SECRET"].encode(), params.encode(), hashlib.sha384).hexdigest()
if answer.get("params") != params:
    sys.exit(f"signer.sh: FAIL: the {name} answer carries different params: {answer.get('params')!r}")
if answer.get("signature") != expected:
    sys.exit(f"signer.sh: FAIL: the {name} answer's signature is {answer.get('signature')!r}, expected {expected}")
print(f"verified: the {name} token gets 200 and a correct signature ({expected[:19]}...)")
PY
}

# load_once NAME RUN: one wrk run; appends NAME, signatures/s, p50 ms, p99 ms
# and the request count to runs.tsv. Exits 1 on any non-2xx answer or socket
# error: every request must have been signed.
load_once() {
    local name=$1 run=$2 raw=$out/wrk-$1-$2.txt
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$work/$name.lua" "$signer_origin/sign" >"$raw" ||
        { cat "$raw" >&2; echo "signer.sh: FAIL: wrk exited with an error" >&2; exit 1; }
    python3 -S - "$raw" "$name" "$run" <<'PY' | tee -a "$runs_tsv" | awk -F'\t' -v run="$run" \
        '{ printf "%s run %s: %.0f signatures/s, p50 %s ms, p99 %s ms (%s requests)\n", $1, run, $2, $3, $4, $5 }'
import re, sys

path, name, run = sys.argv[1:]
text = open(path, encoding="utf-8").read()

def die(message):
    sys.stderr.write(text)
    sys.exit(f"signer.sh: FAIL: {name} run {run}: {message}")

non2xx = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", text)
if non2xx and int(non2xx.group(1)) > 0:
    die(f"{non2xx.group(1)} responses were not 2xx (see the signer's refusal codes with AUDIT=1)")
errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
if errors and any(int(n) for n in errors.groups()):
    die("socket errors (connect, read, write, timeout): " + ", ".join(errors.groups()))
requests = re.search(r"^\s*(\d+) requests in ", text, re.M)
rate = re.search(r"^Requests/sec:\s*([\d.]+)", text, re.M)
if not requests or not rate or int(requests.group(1)) == 0:
    die("no completed requests in wrk's output")

def latency_ms(percent):
    found = re.search(rf"^\s*{percent}%\s+([\d.]+)(us|ms|s|m)\s*$", text, re.M)
    if not found:
        die(f"no {percent}% line in wrk's latency distribution")
    value, unit = float(found.group(1)), found.group(2)
    return value * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]

print(f"{name}\t{float(rate.group(1)):.1f}\t{latency_ms(50):.3f}\t{latency_ms(99):.3f}\t{requests.group(1)}")
PY
}

# ------------------------------------------------------------ measuring
for name in static jwt; do
    if [[ $name == static ]]; then token=$static_token; else token=$jwt; fi
    start_signer "$name"
    check_token "$name" "$token"
    echo
    echo "== loading POST /sign with the $name token ($RUNS runs of $DURATION)"
    for ((run = 1; run <= RUNS; run++)); do
        load_once "$name" "$run"
    done
    # The signer served only this case, so VmHWM is this case's high-water
    # mark over all its runs.
    peaks+=("$name=$(peak_mb "$signer_pid")")
    if [[ ${AUDIT:-} == 1 ]]; then
        echo "audit log: $(wc -l <"$work/audit-$name.jsonl" | tr -d ' ') lines"
    fi
    stop_signer
done

# ---------------------------------------------------------------- report
echo
echo "== report"
python3 -S - "$runs_tsv" "$THREADS" "$CONNECTIONS" "$DURATION" "${peaks[@]}" <<'PY'
import sys

path, threads, connections, duration = sys.argv[1:5]
peaks = dict(item.split("=", 1) for item in sys.argv[5:])
best = {}
with open(path, encoding="utf-8") as handle:
    for line in handle:
        name, rate, p50, p99, requests = line.rstrip("\n").split("\t")
        row = (float(rate), float(p50), float(p99), int(requests))
        if name not in best or row[0] > best[name][0]:
            best[name] = row

labels = {"static": "static token", "jwt": "RS256 JWT"}
table = [("case", "signatures/s", "p50 ms", "p99 ms", "requests", "peak MB")]
for name in ("static", "jwt"):
    if name in best:
        rate, p50, p99, requests = best[name]
        table.append((labels[name], f"{rate:.0f}", f"{p50:.2f}", f"{p99:.2f}", str(requests), peaks.get(name, "?")))

widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
for n, row in enumerate(table):
    cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
    print("  ".join(cells).rstrip())
    if n == 0:
        print("  ".join("-" * w for w in widths))
print()
print(f"each row: the run with the most signatures/s; load: wrk -t{threads} -c{connections} -d{duration},")
print("the same POST /sign (same params) over keep-alive connections on 127.0.0.1.")
print("signatures/s: wrk's Requests/sec; every answer was a 200 (the script fails otherwise).")
print("p50/p99: wrk's latency distribution (--latency), from the request being sent to the")
print("whole answer; wrk shares the machine's CPUs with the signer.")
print("peak MB: the signer's VmHWM from /proc/<pid>/status (MB = 10^6 bytes) after all runs of")
print("its case; each case has its own signer.")
print()
if "static" in best:
    rate, _, p99, _ = best["static"]
    print(f"INFO  static token: {rate:.0f} signatures/s, p99 {p99:.2f} ms (no target)")
if "jwt" in best:
    rate, _, p99, _ = best["jwt"]
    ratio = f"; {rate / best['static'][0]:.2f}x the static token's rate" if "static" in best and best["static"][0] > 0 else ""
    print(f"INFO  RS256 JWT: {rate:.0f} signatures/s, p99 {p99:.2f} ms{ratio} (no target)")
PY
