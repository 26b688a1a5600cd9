#!/usr/bin/env bash
# Runs the whole test suite (plain `swift test`: XCTest, then Swift Testing), then the packages'
# check (`make dist-check`: the release packages installed and run on a fresh Debian 12, see
# scripts/dist-check.sh; DIST_CHECK=0 leaves it out), and ends with one plain summary line,
# "N passed, N failed": XCTest's own count plus the dist check's PASS and FAIL lines.
set -uo pipefail
cd "$(dirname "$0")/.."

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# A hung test must fail the run, not use up CI's time: the whole suite takes about two minutes.
timeout --signal=KILL "${TEST_TIMEOUT:-1200}" swift test 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

# The count is the line after "Test Suite 'All tests' passed|failed": a process that crashes or is
# killed never prints it, and then the test it was running is named at the very end, where a
# CI log's tail shows it.
summary="$(grep -A1 -E "^Test Suite 'All tests' (passed|failed)" "$log" \
    | grep -E "^[[:space:]]*Executed [0-9]+ tests?, with [0-9]+ failures?" | tail -1)"
stopped=""
if [ -z "$summary" ]; then
    running="$(grep -oE "^Test Case '[^']+' (started|passed|failed|skipped)" "$log" | tail -1)"
    case "$running" in *started) stopped="${running% started}" ;; esac
    stopped="XCTest ended before its summary (swift test exited $status) in ${stopped:-no test case}"
    crash="$(mktemp)"
    grep -E "Fatal error|Program crashed|signal|Crash|Precondition|error:" "$log" | tail -6 >"$crash"
    passed="$(grep -cE "^Test Case '[^']+' passed" "$log")"
    failed=$(($(grep -cE "^Test Case '[^']+' failed" "$log") + 1))
else
    executed="$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<<"$summary")"
    failed="$(sed -E 's/.*with ([0-9]+) failures?.*/\1/' <<<"$summary")"
    passed=$((executed - failed))
fi

if [ "${DIST_CHECK:-1}" != 0 ]; then
    # One dist check at a time in this checkout: both would write dist/. A stuck check gets TERM
    # first, so that it unmounts its chroots.
    mkdir -p .build-dist
    timeout --kill-after=60 "${DIST_CHECK_TIMEOUT:-900}" flock .build-dist/.dist-check.lock \
        make --no-print-directory dist-check 2>&1 | tee "$log"
    dist_status=${PIPESTATUS[0]}
    dist_summary="$(grep -E "^dist-check: [0-9]+ passed, [0-9]+ failed$" "$log" | tail -1)"
    if [ -n "$dist_summary" ]; then
        passed=$((passed + $(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$dist_summary")))
        failed=$((failed + $(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$dist_summary")))
    else
        echo "dist-check: no summary (make dist-check exited $dist_status)"
        failed=$((failed + 1))
    fi
    if [ "$status" -eq 0 ] && [ "$dist_status" -ne 0 ]; then status=$dist_status; fi
fi

if [ -n "$stopped" ]; then
    echo "tests: $stopped"
    sed 's/^/tests:   /' "$crash"
    rm -f "$crash"
    if [ "$status" -eq 0 ]; then status=1; fi
fi
echo "tests: $passed passed, $failed failed"
exit "$status"
