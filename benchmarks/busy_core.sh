#!/usr/bin/env bash
# Latency of ge and ONNX Runtime while other processes hold cores: a server's
# normal state, where one engine's spinning threads can stall its own
# stragglers. Each model runs with both engines at their default thread counts
# (ge: the cores it may use; ORT: --threads CORES, as ORT's own default), ge
# then ORT then again, while BUSY bounded busy loops (default 1) run; then
# once more on a quiet machine. Prints p50 / p90 / p99 per engine (ORT's
# ort-bench reports no p99) and ge/ORT ratios of the medians and p90s.
#
# usage: benchmarks/busy_core.sh [--busy N] [--rounds R] MODEL.onnx [MODEL.onnx ...]
# env:   GE (default build/default/tools/ge), ITERS (default 200), ORT_BENCH
set -euo pipefail

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }

busy=1 rounds=2 models=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --help) usage; exit 0 ;;
    --busy) busy=${2:?--busy needs a count}; shift 2 ;;
    --rounds) rounds=${2:?--rounds needs a count}; shift 2 ;;
    -*) echo "busy_core: error: unknown option '$1' (valid: --busy, --rounds, --help)" >&2; exit 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
[[ ${#models[@]} -ge 1 ]] || { usage >&2; exit 2; }
[[ $busy =~ ^[0-9]+$ && $rounds =~ ^[1-9][0-9]*$ ]] ||
  { echo "busy_core: error: --busy and --rounds take whole numbers" >&2; exit 2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly ge=${GE:-$repo/build/default/tools/ge}
readonly ort_bench=${ORT_BENCH:-$repo/../shared/peer/ort-bench}
readonly iters=${ITERS:-200}
cores=$(nproc)
readonly cores
[[ -x $ge ]] || { echo "busy_core: error: no ge binary at $ge (build first: bash scripts/build.sh)" >&2; exit 1; }
[[ -x $ort_bench ]] || { echo "busy_core: error: no ort-bench at $ort_bench" >&2; exit 1; }

busy_pids=()
stop_busy() {
  ((${#busy_pids[@]} == 0)) || kill "${busy_pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  busy_pids=()
}
trap stop_busy EXIT
# Busy loops that end by themselves (timeout) even if this script is killed.
start_busy() {
  local i
  for ((i = 0; i < busy; ++i)); do
    timeout 900 bash -c 'while :; do :; done' &
    busy_pids+=($!)
  done
}

ge_latency() {  # prints "p50 p90 p99"
  "$ge" run "$1" --loop "$iters" --json |
    python3 -c 'import json,sys; l=json.load(sys.stdin)["latency_ms"]; print(l["median"], l["p90"], l["p99"])'
}
ort_latency() {  # prints "p50 p90 -"
  "$ort_bench" "$1" --threads "$cores" --iters "$iters" | tail -n 1 |
    python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(d["median_ms"], d["p90_ms"], "-")'
}

printf '| model | load | round | ge p50 | ge p90 | ge p99 | ORT p50 | ORT p90 | p50 ge/ORT | p90 ge/ORT |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
for model in "${models[@]}"; do
  [[ -f $model ]] || { echo "busy_core: error: no model file $model" >&2; exit 1; }
  name=$(basename "${model%.onnx}")
  for load in busy quiet; do
    [[ $load == busy ]] && start_busy
    label=$([[ $load == busy ]] && echo "$busy busy loop(s)" || echo "quiet")
    for ((round = 1; round <= rounds; ++round)); do
      read -r g50 g90 g99 < <(ge_latency "$model")
      read -r o50 o90 _ < <(ort_latency "$model")
      python3 -c 'import sys; g50, g90, g99, o50, o90 = map(float, sys.argv[4:9])
print("| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |" % (sys.argv[1], sys.argv[2], sys.argv[3],
      g50, g90, g99, o50, o90, g50 / o50, g90 / o90))' "$name" "$label" "$round" "$g50" "$g90" "$g99" "$o50" "$o90"
    done
    [[ $load == busy ]] && stop_busy
  done
done
