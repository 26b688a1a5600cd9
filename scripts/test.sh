#!/usr/bin/env bash
# Runs the whole test suite (the XCTest bundle's classes in parallel processes, see
# scripts/xctest-parallel.sh), then the packages' check (`make dist-check`: the release packages
# installed and run on a fresh Debian 12, see scripts/dist-check.sh; DIST_CHECK=0 leaves it out),
# and ends with one plain summary line, "N passed, N failed": XCTest's count plus the dist
# check's PASS and FAIL lines.
set -uo pipefail
cd "$(dirname "$0")/.."

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# A hung test must fail the run, not use up CI's time: the whole suite takes about three minutes.
timeout --kill-after=30 "${TEST_TIMEOUT:-900}" scripts/xctest-parallel.sh 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
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

echo "tests: $passed passed, $failed failed"
exit "$status"
