#!/bin/bash
# standin_prompts.sh OUT SPLIT... : what `mdmem checkpoint --model` hands a model for each real session of those
# splits of eval/data/checkpoint-real (an empty vault, the whole session), one file per session under OUT/<split>/,
# for helpers standing in for the model (eval/data/checkpoint-standin/README.md).
set -e
here=$(cd "$(dirname "$0")/.." && pwd)
out=$1; shift
mdmem=${MDMEM:-$here/.venv/bin/mdmem}
for split in "$@"; do
  for lab in "$here"/eval/data/checkpoint-real/*.labels.json; do
    s=$(python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['split'])" "$lab")
    [ "$s" = "$split" ] || continue
    name=$(basename "$lab" .labels.json)
    mkdir -p "$out/$split"
    v=$(mktemp -d); mkdir -p "$v/memory"; echo "# Memory" > "$v/MEMORY.md"
    (cd "$v" && MDMEM_HOME=$v/.home "$mdmem" checkpoint "$here/eval/data/checkpoint-real/$name.jsonl" --vault "$v" \
      --session "$name" --model "sh -c 'cat > $out/$split/$name.txt; echo {}'" >/dev/null)
    rm -rf "$v"
  done
done
