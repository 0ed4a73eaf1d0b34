#!/usr/bin/env bash
# Fetches the trained TensorFlow.js graph models the TensorFlow import is
# tested on (the npm package @vladmandic/human ships 11 in its models/
# folder) into a cache, and computes their reference outputs with
# TensorFlow.js's own CPU backend (../shared/peer/tfjs/tf-ref), once:
#   bash scripts/fetch_tf_models.sh
# Cache: ${GE_MODEL_CACHE:-~/.cache/ge-models}/human/package/models/*.json and
# .../human-ref/<model>/ (tf-ref's .npy files, inputs.txt and outputs.txt:
# the tensor names in tf-ref's order). tests/tf reads them there and skips,
# saying so, when they are absent. Nothing is committed or downloaded at run time.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${GE_MODEL_CACHE:-$HOME/.cache/ge-models}
package=@vladmandic/human@3.3.6
mkdir -p "$cache"
if [[ ! -d $cache/human/package/models ]]; then
  echo "fetching $package into $cache ..." >&2
  (cd "$cache" && npm pack "$package" --silent >/dev/null)
  mkdir -p "$cache/human"
  tar -xzf "$cache"/vladmandic-human-3.3.6.tgz -C "$cache/human"
fi
tf_ref=$repo/../shared/peer/tfjs/tf-ref
if [[ ! -x $tf_ref ]]; then
  echo "no $tf_ref: the models are fetched, their reference outputs are not" >&2
  exit 0
fi
# tf-ref seeds every input itself, giving unknown dims the size 1. handtrack
# takes images of any size ([1, ?, ?, 3], uint8; TensorFlow.js feeds int32),
# which it resizes to 320x320 in a while loop: it gets a 96x128 image of its
# own, a gradient with a seeded pattern, so that the loop has work to do.
declare -A given_inputs=([handtrack]="input_tensor 1,96,128,3")
write_image() {  # write_image FILE DIMS: int32 values in [0, 255]
  python3 - "$1" "$2" <<'PY'
import random, struct, sys
path, dims = sys.argv[1], [int(d) for d in sys.argv[2].split(",")]
rng = random.Random(7)
n, h, w, c = dims
values = [(17 * y + 5 * x + 60 * k + rng.randrange(40)) % 256 for _ in range(n) for y in range(h) for x in range(w) for k in range(c)]
header = "{'descr': '<i4', 'fortran_order': False, 'shape': (%s), }" % "".join("%d, " % d for d in dims)
header += " " * (64 - 10 - len(header) - 1) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
    f.write(struct.pack("<%di" % len(values), *values))
PY
}
for model in "$cache"/human/package/models/*.json; do
  name=$(basename "$model" .json)
  [[ $name == models ]] && continue  # the package's index, not a model
  out=$cache/human-ref/$name
  given=${given_inputs[$name]:-}
  [[ -f $out/outputs.txt && "$(cat "$out/given.txt" 2>/dev/null)" == "$given" ]] && continue
  echo "tf-ref $name ..." >&2
  rm -rf "$out"
  mkdir -p "$cache/human-ref"
  flags=()
  if [[ -n $given ]]; then
    write_image "$cache/human-ref/$name.input.npy" "${given#* }"
    flags=(--input "${given%% *}=$cache/human-ref/$name.input.npy")
  fi
  "$tf_ref" "$model" "$out" "${flags[@]}" > "$out.json"
  echo "$given" > "$out/given.txt"
  python3 - "$out.json" "$out" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))
with open(sys.argv[2] + "/inputs.txt", "w") as f:
    f.writelines(i["name"] + "\n" for i in result["inputs"])
with open(sys.argv[2] + "/outputs.txt", "w") as f:
    f.writelines(o["name"] + "\n" for o in result["outputs"])
PY
  mv "$out.json" "$out/tf-ref.json"
done
echo "models and references in $cache" >&2
