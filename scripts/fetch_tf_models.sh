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
for model in "$cache"/human/package/models/*.json; do
  name=$(basename "$model" .json)
  [[ $name == models ]] && continue  # the package's index, not a model
  out=$cache/human-ref/$name
  [[ -f $out/outputs.txt ]] && continue
  echo "tf-ref $name ..." >&2
  rm -rf "$out"
  mkdir -p "$cache/human-ref"
  "$tf_ref" "$model" "$out" > "$out.json"
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
