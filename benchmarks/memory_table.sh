#!/bin/sh
# Prints the memory table of docs/runtime.md: per model, the planned arena,
# the lower bound, the bytes without reuse and the winning placement
# strategy, for the default single-stream plan and a multi-stream plan.
#
#   benchmarks/memory_table.sh build/default/tools/ge MODEL.onnx...
set -eu
ge=$1
shift
echo "| model | arena | lower bound | arena / lower bound | no reuse | strategy | arena, multi-stream |"
echo "|---|---:|---:|---:|---:|---|---:|"
for model in "$@"; do
  single=$("$ge" run "$model" --loop 1 --warmup 0 --json --option ge.enableSingleStream=true)
  multi=$("$ge" run "$model" --loop 1 --warmup 0 --json --option ge.enableSingleStream=false)
  python3 - "$model" "$single" "$multi" <<'PY'
import json, os, sys
name = os.path.splitext(os.path.basename(sys.argv[1]))[0]
single, multi = json.loads(sys.argv[2])["memory"], json.loads(sys.argv[3])["memory"]
kib = lambda b: f"{b / 1024:,.1f} KiB"
print(f"| {name} | {kib(single['arena_bytes'])} | {kib(single['lower_bound_bytes'])} | "
      f"{single['arena_bytes'] / single['lower_bound_bytes']:.3f} | {kib(single['no_reuse_bytes'])} | "
      f"{single['placement_strategy']} | {kib(multi['arena_bytes'])} |")
PY
done
