#!/usr/bin/env bash
# The command step of action.yml: PIPELINE_COMMAND plan or run on PIPELINE_MANIFEST (default
# pipeline.yml) with PIPELINE_ARGS. Both put the plan as Markdown in the job's summary
# ($GITHUB_STEP_SUMMARY, when set) and the log; run then runs the manifest with the arguments.
set -euo pipefail
manifest="${PIPELINE_MANIFEST:-pipeline.yml}"
# Split at spaces only: no pattern in the arguments is expanded.
set -f
# shellcheck disable=SC2206
args=(${PIPELINE_ARGS:-})
set +f
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"

case "${PIPELINE_COMMAND:-}" in
plan | run) ;;
*)
    echo "::error::command must be plan or run, not '${PIPELINE_COMMAND:-}'"
    exit 64
    ;;
esac

pipeline validate "$manifest"
if [ "$PIPELINE_COMMAND" = plan ]; then
    pipeline plan "$manifest" --format markdown "${args[@]}" | tee -a "$summary"
else
    # The arguments are run's; the summary shows the whole plan.
    pipeline plan "$manifest" --format markdown | tee -a "$summary"
    pipeline run "$manifest" "${args[@]}"
fi
