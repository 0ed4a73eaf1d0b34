#!/usr/bin/env bash
# The dynamic-shape workloads of docs/performance.md with ge and ONNX Runtime
# on one machine, interleaved: a KV-cache decoder (decode_compare.sh), a
# variable-length encoder at several (batch, length) pairs, a streaming
# model with If, Loop and an LSTM, and a detector whose outputs' length
# comes from NonZero.
#
# usage: benchmarks/dynamic_compare.sh DIR [--export] [--threads N] [--json]
# env:   GE (default build/default/tools/ge), ORT_BENCH, ITERS (default 100)
#
# DIR holds the models; --export writes them first with Debian's
# /usr/bin/python3 (torch, numpy): decoder.onnx (export_decoder.py),
# encoder_dynamic.onnx with x_B_L.npy inputs (export_transformer.py
# --dynamic), vad.onnx with vad.onnx.inputs/ and vad.onnx.expected/
# (export_streaming.py), and detector.onnx with detector.onnx.inputs/ and
# detector.onnx.expected/ (export_detector.py). For the encoder, "ge ms" is
# a repeated shape, which runs the static plan compiled for it from its
# second run; "ge per-run" is the node-by-node tier every new shape takes
# first (ge.exec.dynamicPlanCacheBytes=0). For the detector, "ge ms" plans
# the static head before the NonZero, "ge per-run" runs it node by node.
# "ge .gem" runs each model compiled first by `ge compile` into DIR (ATC's
# workflow: compile once, load the compiled model), which spares the run
# the ONNX import (protobuf parsing, ONNX's checker and shape inference and
# the op schema registry they build). Latency: median of ITERS runs after 3
# warm-up; MB: peak RSS above the process baseline.
set -euo pipefail

usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; }
dir= export=0 threads=1 json=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --help) usage; exit 0 ;;
    --export) export=1; shift ;;
    --threads) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || { echo "dynamic_compare: error: --threads needs a count" >&2; exit 2; }
               threads=$2; shift 2 ;;
    --json) json=1; shift ;;
    -*) echo "dynamic_compare: error: unknown option '$1' (valid: --export, --threads, --json)" >&2; exit 2 ;;
    *) dir=$1; shift ;;
  esac
done
[[ -n $dir ]] || { usage >&2; exit 2; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ge=${GE:-$repo/build/default/tools/ge}
ort_bench=${ORT_BENCH:-$repo/../shared/peer/ort-bench}
iters=${ITERS:-100}
shapes=("1 7" "4 33" "2 128")
[[ -x $ge ]] || { echo "dynamic_compare: error: no ge binary at $ge (build first: bash scripts/build.sh)" >&2; exit 1; }
[[ -x $ort_bench ]] || { echo "dynamic_compare: error: no ort-bench at $ort_bench" >&2; exit 1; }

if [[ $export == 1 ]]; then
  mkdir -p "$dir"
  /usr/bin/python3 "$repo/benchmarks/export_decoder.py" "$dir/decoder.onnx" >/dev/null
  /usr/bin/python3 "$repo/benchmarks/export_transformer.py" "$dir/encoder_dynamic.onnx" --dynamic >/dev/null
  /usr/bin/python3 "$repo/benchmarks/export_streaming.py" "$dir/vad.onnx" >/dev/null
  /usr/bin/python3 "$repo/benchmarks/export_detector.py" "$dir/detector.onnx" >/dev/null
  /usr/bin/python3 - "$dir" "${shapes[@]}" <<'PY'
import sys
import numpy as np
for shape in sys.argv[2:]:
    batch, length = map(int, shape.split())
    np.save(f"{sys.argv[1]}/x_{batch}_{length}.npy",
            np.random.RandomState(batch * 1000 + length).randn(batch, length, 256).astype(np.float32))
PY
fi
for file in decoder.onnx encoder_dynamic.onnx vad.onnx detector.onnx; do
  [[ -f $dir/$file ]] || { echo "dynamic_compare: error: no $dir/$file (run with --export)" >&2; exit 1; }
  "$ge" compile --model "$dir/$file" --output "$dir/${file%.onnx}.gem" >/dev/null
done

rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
ge_run() {  # MODEL, then ge run arguments; prints "median_ms rss_mb"
  "$ge" run "$@" --loop "$iters" --warmup 3 --threads "$threads" --json |
    python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["latency_ms"]["median"], d["peak_rss_mb"] - d["baseline_rss_mb"])'
}
ort_run() {  # MODEL, then ort-bench arguments
  "$ort_bench" "$@" --threads "$threads" --iters "$iters" --warmup 3 | tail -n 1 |
    python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["median_ms"], d["peak_rss_mb"] - d["baseline_rss_mb"])'
}

[[ $json == 1 ]] || echo "dynamic_compare: decoder..." >&2
decode=$(bash "$repo/benchmarks/decode_compare.sh" "$dir/decoder.onnx" --threads "$threads" --rounds 3 --json)
decode_gem=$(bash "$repo/benchmarks/decode_compare.sh" "$dir/decoder.onnx" --ge-model "$dir/decoder.gem" \
  --threads "$threads" --rounds 3 --json)
for shape in "${shapes[@]}"; do
  read -r batch length <<<"$shape"
  [[ $json == 1 ]] || echo "dynamic_compare: encoder at ($batch, $length)..." >&2
  input=x=$dir/x_${batch}_${length}.npy
  echo "encoder ($batch, $length) $(ge_run "$dir/encoder_dynamic.onnx" --input "$input") \
$(ge_run "$dir/encoder_dynamic.onnx" --input "$input" --option ge.exec.dynamicPlanCacheBytes=0) \
$(ge_run "$dir/encoder_dynamic.gem" --input "$input") \
$(ort_run "$dir/encoder_dynamic.onnx" --input "$input")" >>"$rows"
done
[[ $json == 1 ]] || echo "dynamic_compare: streaming model..." >&2
stream_inputs=()
for name in x sr h c; do stream_inputs+=(--input "$name=$dir/vad.onnx.inputs/$name.npy"); done
echo "streaming (1 chunk) $(ge_run "$dir/vad.onnx" "${stream_inputs[@]}") - - $(ge_run "$dir/vad.gem" "${stream_inputs[@]}") \
$(ort_run "$dir/vad.onnx" "${stream_inputs[@]}")" >>"$rows"
[[ $json == 1 ]] || echo "dynamic_compare: detector..." >&2
image=image=$dir/detector.onnx.inputs/image.npy
echo "detector (NonZero) $(ge_run "$dir/detector.onnx" --input "$image") \
$(ge_run "$dir/detector.onnx" --input "$image" --option ge.exec.dynamicPlanCacheBytes=0) \
$(ge_run "$dir/detector.gem" --input "$image") \
$(ort_run "$dir/detector.onnx" --input "$image")" >>"$rows"

python3 - "$json" "$decode" "$decode_gem" "$rows" <<'PY'
import json, sys
as_json, decode, decode_gem = sys.argv[1] == "1", json.loads(sys.argv[2]), json.loads(sys.argv[3])
rows = open(sys.argv[4]).read().splitlines()
table = []
for line in rows:
    words = line.split()
    name = " ".join(words[:-8])
    ge_ms, ge_mb, per_run_ms, per_run_mb, gem_ms, gem_mb, ort_ms, ort_mb = words[-8:]
    number = lambda text: None if text == "-" else float(text)
    table.append({"workload": name, "ge_ms": float(ge_ms), "ge_per_run_ms": number(per_run_ms), "ort_ms": float(ort_ms),
                  "ratio": float(ge_ms) / float(ort_ms), "ge_mb": float(ge_mb), "ort_mb": float(ort_mb),
                  "rss_ratio": float(ge_mb) / float(ort_mb), "gem_ms": float(gem_ms), "gem_mb": float(gem_mb),
                  "gem_rss_ratio": float(gem_mb) / float(ort_mb)})
rounds, gem_rounds = decode["rounds"], decode_gem["rounds"]
median = lambda key, runs=rounds: sorted(r[key] for r in runs)[len(runs) // 2]
table.insert(0, {"workload": "decoder (per token)", "ge_ms": median("ge_ms"), "ge_per_run_ms": median("ge_ms"),
                 "ort_ms": median("ort_ms"), "ratio": median("ratio"), "ge_mb": median("ge_rss_mb"),
                 "ort_mb": median("ort_rss_mb"), "rss_ratio": median("rss_ratio"),
                 "gem_ms": median("ge_ms", gem_rounds), "gem_mb": median("ge_rss_mb", gem_rounds),
                 "gem_rss_ratio": median("rss_ratio", gem_rounds),
                 "same_tokens": all(r["same_tokens"] for r in rounds),
                 "matches_pytorch": all(r["ge_matches_pytorch"] for r in rounds)
                 if rounds[0]["ge_matches_pytorch"] is not None else None})
if as_json:
    print(json.dumps({"workloads": table, "decoder_rounds": rounds, "decoder_gem_rounds": gem_rounds}))
    sys.exit(0)
head = ("workload", "ge ms", "ge per-run", "ORT ms", "ratio", "ge MB", "ORT MB", "ratio", ".gem ms", ".gem MB", "ratio")
widths = (22, 8, 11, 8, 7, 7, 7, 7, 9, 9, 7)
print("".join(f"{h:<{w}}" if i == 0 else f"{h:>{w}}" for i, (h, w) in enumerate(zip(head, widths))))
for r in table:
    per_run = "-" if r["ge_per_run_ms"] is None else f"{r['ge_per_run_ms']:.3f}"
    cells = (r["workload"], f"{r['ge_ms']:.3f}", per_run, f"{r['ort_ms']:.3f}", f"{r['ratio']:.2f}", f"{r['ge_mb']:.1f}",
             f"{r['ort_mb']:.1f}", f"{r['rss_ratio']:.2f}", f"{r['gem_ms']:.3f}", f"{r['gem_mb']:.1f}",
             f"{r['gem_rss_ratio']:.2f}")
    print("".join(f"{c:<{w}}" if i == 0 else f"{c:>{w}}" for i, (c, w) in enumerate(zip(cells, widths))))
decoder = table[0]
print(f"decoder: median of 3 rounds of 64 tokens; ge and ORT tokens {'agree' if decoder['same_tokens'] else 'DIFFER'}"
      + ("" if decoder["matches_pytorch"] is None else
         f", ge's {'match' if decoder['matches_pytorch'] else 'DIFFER from'} PyTorch's"))
PY
