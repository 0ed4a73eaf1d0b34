#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang, ASan + UBSan) and
# fuzzes each for a bounded time: `bash scripts/fuzz.sh [SECONDS [TARGET...]]`,
# default 30 seconds for each of the six targets (docs/reliability.md).
# The corpus a target grows is kept in build/fuzz/corpus/<target>, seeded with
# tests/fuzz/corpus/ and every input that once crashed ge
# (tests/fuzz/regressions/<target>/). A crash, sanitizer report, leak, escaped
# exception or an input that runs longer than FUZZ_INPUT_TIMEOUT seconds
# (default 60) is written to build/fuzz/findings/<target>/ and fails the
# script; copy it into tests/fuzz/regressions/<target>/ with the fix, so the
# normal suite replays it from then on.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds="${1:-30}"
targets=("${@:2}")
((${#targets[@]} > 0)) || targets=(onnx_import c_api_import gem_load config_text quant_files npy)
input_timeout="${FUZZ_INPUT_TIMEOUT:-60}"

bash scripts/build.sh fuzz

corpus_of() {  # the committed seed folder of a target
  case "$1" in
    onnx_import | c_api_import) echo onnx ;;
    *) echo "$1" ;;
  esac
}

# One intra-op thread: libFuzzer runs one input at a time, and OpenMP teams
# would only add scheduling noise to its timeouts.
export OMP_NUM_THREADS=1
failed=()
summary=()
for target in "${targets[@]}"; do
  program="build/fuzz/tests/fuzz/fuzz_${target}"
  [[ -x $program ]] || { echo "error: no fuzz target '${target}' (${program})" >&2; exit 2; }
  work="build/fuzz/corpus/${target}"
  findings="build/fuzz/findings/${target}"
  log="build/fuzz/logs/${target}.log"
  mkdir -p "$work" "$findings" "$(dirname "$log")"
  seeds=("tests/fuzz/corpus/$(corpus_of "$target")")
  [[ -d tests/fuzz/regressions/${target} ]] && seeds+=("tests/fuzz/regressions/${target}")
  echo "fuzzing ${target} for ${seconds} s (log: ${log})"
  status=0
  "$program" "$work" "${seeds[@]}" -max_total_time="$seconds" -timeout="$input_timeout" \
    -rss_limit_mb=4096 -max_len=131072 -print_final_stats=1 -artifact_prefix="${findings}/" \
    >"$log" 2>&1 || status=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  summary+=("$(printf '%-14s %10s executions  %5s s  exit %s' "$target" "${executions:-?}" "$seconds" "$status")")
  if ((status != 0)); then
    failed+=("$target")
    grep -m3 -E "ERROR|SUMMARY|Test unit written" "$log" >&2 || tail -20 "$log" >&2
  fi
done

printf '%s\n' "${summary[@]}"
if ((${#failed[@]} > 0)); then
  echo "error: findings in ${failed[*]}: see build/fuzz/findings/ and build/fuzz/logs/" >&2
  exit 1
fi
