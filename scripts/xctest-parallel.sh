#!/usr/bin/env bash
# Runs the XCTest bundle's test classes in JOBS processes at once (default: twice the cores; the
# suite waits on servers and media tools as much as it computes), slowest classes first, and ends
# with "xctest: N passed, N failed". Each class is its own process, so a crash fails that class only
# and names the test it was in. A class's output is printed whole when it ends, so the log reads
# class by class. Usage: scripts/xctest-parallel.sh [BUNDLE]
#
# The order comes from the previous run's durations (.build/xctest-durations, written at the end of
# each run) or, on a fresh checkout, from scripts/xctest-durations.txt (`XCTEST_RECORD=1` refreshes
# that file from this run). XCTEST_CLASSES (an extended regular expression) runs only the classes
# it matches, and then records no durations.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

bundle="${1:-$(swift build --show-bin-path)/pipelinePackageTests.xctest}"
jobs="${XCTEST_JOBS:-$(($(nproc) * 2))}"
known=".build/xctest-durations"
shipped="scripts/xctest-durations.txt"
[ -x "$bundle" ] || { echo "xctest: no test bundle at $bundle (swift build --build-tests)"; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$bundle" --list-tests 2>/dev/null | grep / | sed 's|/.*||' | sort -u \
    | grep -E -- "${XCTEST_CLASSES:-.}" >"$work/classes"
if [ ! -s "$work/classes" ]; then
    echo "xctest: $bundle lists no tests"
    echo "xctest: 0 passed, 1 failed"
    exit 1
fi
durations="$shipped"
[ -s "$known" ] && durations="$known"
# Slowest first (a class never timed counts as slow, so that a new slow class cannot end the run
# alone), ties by name.
awk 'NR == FNR { seconds[$1] = $2; next } { print (($1 in seconds) ? seconds[$1] : 60), $1 }' \
    "$durations" "$work/classes" | sort -k1,1nr -k2 | cut -d' ' -f2 >"$work/order"

# run_class CLASS: the class in its own process; its whole output goes to the log at once.
# The durations file has the wall-clock seconds and then the CPU seconds the class used.
run_class() {
    local class="$1" out="$work/$1.log" started=$SECONDS cpu
    cpu="$({ TIMEFORMAT='%U %S'; time "$bundle" "$class" >"$out" 2>&1; } 2>&1)"
    echo "$class $((SECONDS - started)) $(awk '{ printf "%.0f", $1 + $2 }' <<<"$cpu")" >>"$work/ended"
    flock "$work/ended" cat "$out"
}
export -f run_class
export bundle work
# A process and everything it started, deepest first.
process_tree() {
    local child
    for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do process_tree "$child"; done
    echo "$1"
}
xargs -P "$jobs" -I{} bash -c 'run_class "$1"' _ {} <"$work/order" &
runner=$!
# Stopped from outside (test.sh's time limit): the classes still running fail, and the summary
# still comes.
trap 'kill -TERM $(process_tree "$runner") 2>/dev/null' TERM INT
wait "$runner"
wait "$runner" 2>/dev/null
trap - TERM INT

passed=0
failed=0
skipped=0
while read -r class; do
    log="$work/$class.log"
    # "Executed 5 tests, with 0 failures" or "Executed 5 tests, with 2 tests skipped and 0 failures".
    summary="$(grep -A1 -E "^Test Suite 'Selected tests' (passed|failed)" "$log" 2>/dev/null \
        | grep -E "Executed [0-9]+ tests?, with ([0-9]+ tests? skipped and )?[0-9]+ failures?" | tail -1)"
    if [ -n "$summary" ]; then
        executed="$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<<"$summary")"
        failures="$(sed -E 's/.* ([0-9]+) failures?.*/\1/' <<<"$summary")"
        skips=0
        if [[ "$summary" =~ ([0-9]+)\ tests?\ skipped ]]; then skips="${BASH_REMATCH[1]}"; fi
        passed=$((passed + executed - failures - skips))
        failed=$((failed + failures))
        skipped=$((skipped + skips))
    else
        # Crashed or killed: what passed counts, and the test that was running fails.
        running="$(grep -oE "^Test Case '[^']+' (started|passed|failed)" "$log" | tail -1)"
        passed=$((passed + $(grep -cE "^Test Case '[^']+' passed" "$log")))
        failed=$((failed + $(grep -cE "^Test Case '[^']+' failed" "$log") + 1))
        echo "xctest: $class ended before its summary in ${running:-no test case}"
        grep -E "Fatal error|Program crashed|signal|Crash|Precondition|error:" "$log" | tail -6 | sed 's/^/xctest:   /'
    fi
done <"$work/classes"
if [ -z "${XCTEST_CLASSES:-}" ]; then
    sort "$work/ended" >"$known"
    if [ "${XCTEST_RECORD:-0}" = 1 ]; then cp "$known" "$shipped"; fi
fi
if [ "$skipped" -gt 0 ]; then
    echo "xctest: $skipped skipped (each says why in its class's output):"
    cat "$work"/*.log | grep -oE "^Test Case '[^']+' skipped" | sed "s/^Test Case /xctest:   /; s/ skipped$//" | sort | head -20
fi
echo "xctest: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
