#!/usr/bin/env bash
# Runs the whole test suite (plain `swift test`: XCTest, then Swift Testing) and ends with one
# plain summary line, "N passed, N failed", counted from XCTest's own report.
set -uo pipefail
cd "$(dirname "$0")/.."

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# A hung test must fail the run, not use up CI's time: the whole suite takes about two minutes.
timeout --signal=KILL "${TEST_TIMEOUT:-1200}" swift test 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

summary="$(grep -E "^[[:space:]]*Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -1)"
executed="$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<<"$summary")"
failed="$(sed -E 's/.*with ([0-9]+) failures?.*/\1/' <<<"$summary")"
if [ -z "$summary" ]; then
    echo "tests: no XCTest summary found (swift test exited $status)"
    exit $((status == 0 ? 1 : status))
fi
echo "tests: $((executed - failed)) passed, $failed failed"
exit "$status"
