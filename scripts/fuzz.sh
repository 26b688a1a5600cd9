#!/usr/bin/env bash
# Builds the fuzzers with libFuzzer (and AddressSanitizer) and runs each target for $FUZZ_SECONDS
# (default 60), starting from the seeds in Fuzz/Corpus/<target>/ (which the test suite replays).
# What the fuzzer learns stays in .build/fuzz/corpus/; a crash or a failed property leaves its
# input in Fuzz/Findings/ and fails: fix it, then commit the input to Fuzz/Corpus/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
targets=("${@:-manifest policy json tus-headers form}")
# shellcheck disable=SC2206
targets=(${targets[*]})

PIPELINE_FUZZ=1 swift build -c release --build-path .build/fuzz --product pipeline-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
fuzzer=.build/fuzz/release/pipeline-fuzz
mkdir -p Fuzz/Findings
status=0
for target in "${targets[@]}"; do
    mkdir -p "Fuzz/Corpus/$target" ".build/fuzz/corpus/$target"
    echo "== fuzz $target for ${seconds}s"
    # The form target's server frees a request just after answering it, on its own thread: leak
    # checks per input would race with that, so they are off for it (ASan still checks memory).
    leaks=1
    [ "$target" = form ] && leaks=0
    if ! FUZZ_TARGET="$target" "$fuzzer" ".build/fuzz/corpus/$target" "Fuzz/Corpus/$target" -max_total_time="$seconds" -max_len=65536 \
        -detect_leaks="$leaks" \
        -timeout=10 -rss_limit_mb=2048 -artifact_prefix="Fuzz/Findings/$target-" -print_final_stats=1 2>"Fuzz/Findings/$target.log"; then
        echo "   $target: FAILED, see Fuzz/Findings/$target.log and Fuzz/Findings/$target-*"
        status=1
    fi
    grep -E "^stat::(number_of_executed_units|new_units_added)|Done [0-9]+ runs" "Fuzz/Findings/$target.log" | sed 's/^/   /' || true
done
exit "$status"
