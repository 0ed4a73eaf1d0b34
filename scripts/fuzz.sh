#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang, ASan + UBSan) and
# fuzzes each of them (docs/reliability.md):
#   bash scripts/fuzz.sh [SECONDS [TARGET...]]   each target for SECONDS (default 30)
#   bash scripts/fuzz.sh --runs N [TARGET...]    each target for N executions (the long runs)
#   bash scripts/fuzz.sh --ci                    the CI run: reproducible, about 20 s per target
# A timed run keeps the corpus a target grows in build/fuzz/corpus/<target>,
# seeded with tests/fuzz/corpus/ and every input that once crashed ge
# (tests/fuzz/regressions/<target>/). The CI run starts from those seeds
# alone, with a fixed random seed and a fixed number of executions per
# target, so that it explores the same inputs for the same commit on any
# machine: it fails for a commit, not for a lucky draw.
# A crash, sanitizer report, leak, escaped exception or an input that runs
# longer than FUZZ_INPUT_TIMEOUT seconds (default 60) is written to
# build/fuzz/findings/<target>/ and fails the script; copy it into
# tests/fuzz/regressions/<target>/ with the fix, so the normal suite replays
# it from then on.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

all_targets=(onnx_import c_api_import gem_load config_text quant_files npy framework_import)
ci=false
runs=""
seconds=""
if [[ ${1:-} == --ci ]]; then
  ci=true
  targets=("${all_targets[@]}")
elif [[ ${1:-} == --runs ]]; then
  runs="${2:?--runs needs a number of executions}"
  targets=("${@:3}")
else
  seconds="${1:-30}"
  targets=("${@:2}")
fi
((${#targets[@]} > 0)) || targets=("${all_targets[@]}")
input_timeout="${FUZZ_INPUT_TIMEOUT:-60}"

bash scripts/build.sh fuzz

corpus_of() {  # the committed seed folder of a target
  case "$1" in
    onnx_import | c_api_import) echo onnx ;;
    *) echo "$1" ;;
  esac
}

# Executions of the CI run: about 20 s of each target on one core of the
# development machine (docs/reliability.md has the rates).
ci_runs_of() {
  case "$1" in
    onnx_import | framework_import) echo 6000 ;;
    c_api_import) echo 12000 ;;
    gem_load) echo 15000 ;;
    npy) echo 100000 ;;
    *) echo 150000 ;;
  esac
}

# One intra-op thread: libFuzzer runs one input at a time, and OpenMP teams
# would only add scheduling noise to its timeouts.
export OMP_NUM_THREADS=1
# Stack traces with function names and lines.
symbolizer=$(command -v llvm-symbolizer-16 || command -v /usr/lib/llvm-16/bin/llvm-symbolizer || true)
[[ -n $symbolizer ]] && export ASAN_SYMBOLIZER_PATH="$symbolizer" UBSAN_SYMBOLIZER_PATH="$symbolizer"
failed=()
summary=()
for target in "${targets[@]}"; do
  program="build/fuzz/tests/fuzz/fuzz_${target}"
  [[ -x $program ]] || { echo "error: no fuzz target '${target}' (${program})" >&2; exit 2; }
  findings="build/fuzz/findings/${target}"
  log="build/fuzz/logs/${target}.log"
  mkdir -p "$findings" "$(dirname "$log")"
  if $ci; then
    work=$(mktemp -d build/fuzz/ci-corpus.XXXXXX)
    bound=(-runs="$(ci_runs_of "$target")" -seed=1)
  else
    work="build/fuzz/corpus/${target}"
    mkdir -p "$work"
    if [[ -n $runs ]]; then
      bound=(-runs="$runs")
    else
      bound=(-max_total_time="$seconds")
    fi
  fi
  seeds=("tests/fuzz/corpus/$(corpus_of "$target")")
  [[ -d tests/fuzz/regressions/${target} ]] && seeds+=("tests/fuzz/regressions/${target}")
  echo "fuzzing ${target} (${bound[*]}; log: ${log})"
  start=$SECONDS
  status=0
  "$program" "$work" "${seeds[@]}" "${bound[@]}" -timeout="$input_timeout" -rss_limit_mb=4096 -max_len=131072 \
    -print_final_stats=1 -artifact_prefix="${findings}/" >"$log" 2>&1 || status=$?
  $ci && rm -rf "$work"
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  summary+=("$(printf '%-14s %10s executions %6s s  exit %s' "$target" "${executions:-?}" "$((SECONDS - start))" "$status")")
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
