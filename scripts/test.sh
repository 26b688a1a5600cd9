#!/usr/bin/env bash
# The whole test suite as `make test` runs it (after `scripts/setup.sh build`), ending with one
# plain summary line, "tests: N passed, N failed": XCTest's count plus the dist check's PASS and
# FAIL lines. What waits on the network or the disk runs beside what computes:
#   1. the release packages (scripts/dist.sh, a release build) start in the background at once:
#      they need only what `scripts/setup.sh build` installed;
#   2. `scripts/setup.sh test` installs the test tools; then the dist check's clean Debian is made
#      in the background (`scripts/dist-check.sh --prepare`, mostly downloads);
#   3. the tests are built and run (scripts/xctest-parallel.sh: each class in its own process);
#   4. once the packages are built, scripts/dist-check.sh installs and runs them on that Debian.
# DIST_CHECK=0 leaves the packages and their check out. The time each part took is printed
# before the summary.
set -uo pipefail
cd "$(dirname "$0")/.."

SWIFT="${SWIFT:-swift}"
check_packages="${DIST_CHECK:-1}"
log="$(mktemp)"
dist_pid=""
prepare_pid=""
times=()
# Background work is a process group of its own (setsid), stopped whole if this script ends early.
stop_background() {
    local pid
    for pid in $dist_pid $prepare_pid; do kill -TERM -- "-$pid" 2>/dev/null; done
}
trap 'stop_background; rm -f "$log"' EXIT
trap 'exit 130' INT TERM
# finish STATUS PASSED FAILED: the times, then the summary line.
finish() {
    echo "tests: took ${times[*]}"
    echo "tests: $2 passed, $3 failed"
    exit "$1"
}
# timed NAME COMMAND...: runs the command and notes how long it took.
timed() {
    local name="$1" started=$SECONDS status=0
    shift
    "$@" || status=$?
    times+=("$name $((SECONDS - started)) s,")
    return "$status"
}

started=$SECONDS
mkdir -p .build-dist
if [ "$check_packages" != 0 ]; then
    # One dist at a time in this checkout: both would write dist/.
    setsid flock .build-dist/.dist-check.lock scripts/dist.sh >.build-dist/dist.log 2>&1 &
    dist_pid=$!
fi
timed setup scripts/setup.sh test || { echo "tests: scripts/setup.sh test failed"; finish 1 0 1; }
if [ "$check_packages" != 0 ]; then
    setsid scripts/dist-check.sh --prepare >.build-dist/dist-prepare.log 2>&1 &
    prepare_pid=$!
fi
timed build "$SWIFT" build --build-tests || { echo "tests: the tests did not build"; finish 1 0 1; }

# A hung test must fail the run, not use up CI's time: the whole suite takes about four minutes.
phase=$SECONDS
timeout --kill-after=30 "${TEST_TIMEOUT:-900}" scripts/xctest-parallel.sh 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
times+=("xctest $((SECONDS - phase)) s,")
summary="$(grep -E "^xctest: [0-9]+ passed, [0-9]+ failed$" "$log" | tail -1)"
if [ -n "$summary" ]; then
    passed="$(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$summary")"
    failed="$(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$summary")"
else
    echo "tests: the XCTest runner ended without its summary (exit status $status)"
    passed=0
    failed=1
    [ "$status" -ne 0 ] || status=1
fi

if [ "$check_packages" != 0 ]; then
    dist_status=0
    wait "$dist_pid" || dist_status=$?
    dist_pid=""
    times+=("packages (beside the rest) ready after $((SECONDS - started)) s,")
    if [ "$dist_status" -ne 0 ]; then
        echo "dist: scripts/dist.sh failed (exit status $dist_status); the end of .build-dist/dist.log:"
        tail -n 20 .build-dist/dist.log | sed 's/^/dist:   /'
        failed=$((failed + 1))
    else
        # A stuck check gets TERM first, so that it unmounts its chroots; it waits for the
        # prepared Debian itself.
        phase=$SECONDS
        timeout --kill-after=60 "${DIST_CHECK_TIMEOUT:-900}" flock .build-dist/.dist-check.lock \
            scripts/dist-check.sh 2>&1 | tee "$log"
        dist_status=${PIPESTATUS[0]}
        times+=("dist-check $((SECONDS - phase)) s,")
        dist_summary="$(grep -E "^dist-check: [0-9]+ passed, [0-9]+ failed$" "$log" | tail -1)"
        if [ -n "$dist_summary" ]; then
            passed=$((passed + $(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$dist_summary")))
            failed=$((failed + $(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$dist_summary")))
        else
            echo "dist-check: no summary (scripts/dist-check.sh exited $dist_status)"
            failed=$((failed + 1))
        fi
    fi
    wait "$prepare_pid" 2>/dev/null
    prepare_pid=""
    if [ "$status" -eq 0 ] && [ "$dist_status" -ne 0 ]; then status=$dist_status; fi
fi
times+=("in all $((SECONDS - started)) s")
finish "$status" "$passed" "$failed"
