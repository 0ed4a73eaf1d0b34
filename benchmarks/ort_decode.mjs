// ONNX Runtime's side of benchmarks/decode_compare.sh: greedy KV-cache
// decoding with the contract of benchmarks/decode_benchmark.cc (one int64
// token input, float cache inputs with the past length unknown, output 0 the
// logits, outputs 1.. the caches in the order of the cache inputs).
//
//   node ort_decode.mjs MODEL.onnx PROMPT TOKENS THREADS
//
// Prints one JSON line: decode median and p90 per token, the prefill, peak
// RSS (node's, and above node with onnxruntime loaded), and the tokens.
import ort from 'onnxruntime-node';
import { performance } from 'node:perf_hooks';

const [model, promptArg, tokensArg, threadsArg] = process.argv.slice(2);
const prompt = parseInt(promptArg || '8'), tokens = parseInt(tokensArg || '64'), threads = parseInt(threadsArg || '1');
const baselineMb = process.resourceUsage().maxRSS / 1024;
const session = await ort.InferenceSession.create(model, {
  intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
// The token input is the int64 one; the caches are the float inputs, fed
// empty for the prefill (their one symbolic dim, the past length, at 0).
let idsName = null;
const caches = [];
let feed = {};
for (const input of session.inputMetadata) {
  if (input.type === 'int64') { idsName = input.name; continue; }
  caches.push(input.name);
  const dims = input.shape.map((d) => (typeof d === 'number' ? d : 0));
  feed[input.name] = new ort.Tensor('float32', new Float32Array(0), dims);
}
feed[idsName] = new ort.Tensor('int64', BigInt64Array.from({ length: prompt }, (_, t) => BigInt(t + 1)), [1, prompt]);
const outputs = session.outputNames;
const steps = []; const generated = []; let prefill = 0;
for (let step = 0; step <= tokens; ++step) {
  const begin = performance.now();
  const out = await session.run(feed);
  const ms = performance.now() - begin;
  if (step === 0) prefill = ms; else steps.push(ms);
  const logits = out[outputs[0]];
  const vocabulary = logits.dims[logits.dims.length - 1];
  const row = logits.data.subarray(logits.data.length - vocabulary);
  let best = 0;
  for (let j = 1; j < vocabulary; ++j) if (row[j] > row[best]) best = j;
  generated.push(best);
  feed = { [idsName]: new ort.Tensor('int64', BigInt64Array.from([BigInt(best)]), [1, 1]) };
  caches.forEach((name, i) => { feed[name] = out[outputs[i + 1]]; });
}
steps.sort((a, b) => a - b);
const pick = (p) => steps[Math.floor(p * (steps.length - 1))];
const peakMb = process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify({ runtime: 'onnxruntime', tokens, median_ms: +pick(0.5).toFixed(4), p90_ms: +pick(0.9).toFixed(4),
  prefill_ms: +prefill.toFixed(3), peak_rss_mb: +peakMb.toFixed(1), rss_above_baseline_mb: +(peakMb - baselineMb).toFixed(1),
  generated }));
