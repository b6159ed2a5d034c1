#!/usr/bin/env bash
# Rebuild mdmem/assets/graph.bundle.js (the JavaScript inlined by `mdmem graph html`) and
# mdmem/assets/LICENSES.txt from the npm registry, with pinned versions.
#
#   bash scripts/build_graph_js.sh
#
# Needs node >= 18 and npm. Works in a throw-away temp dir; only the two files above are written.
# The bundle is one minified IIFE that sets `window.MdmemGraphLib` = {Graph, Sigma, forceAtlas2,
# fa2Worker, fa2Helpers, fa2Defaults}; the page's own code (mdmem/assets/graph_app.js) is plain source and needs no build.
set -euo pipefail

SIGMA=3.0.2
GRAPHOLOGY=0.26.0
FA2=0.10.1
# transitive dependencies, pinned too so that a rebuild gives the same bytes
GRAPHOLOGY_UTILS=2.5.2
GRAPHOLOGY_TYPES=0.24.8
EVENTS=3.3.0
ESBUILD=0.28.2

here="$(cd "$(dirname "$0")/.." && pwd)"
out="$here/mdmem/assets"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

cat > package.json <<'JSON'
{"name": "mdmem-graph-bundle", "version": "0.0.0", "private": true, "license": "MIT"}
JSON
npm install --no-audit --no-fund --ignore-scripts --save-exact \
  "sigma@$SIGMA" "graphology@$GRAPHOLOGY" "graphology-layout-forceatlas2@$FA2" \
  "graphology-utils@$GRAPHOLOGY_UTILS" "graphology-types@$GRAPHOLOGY_TYPES" "events@$EVENTS" \
  "esbuild@$ESBUILD" >/dev/null

cat > entry.js <<'JS'
import Graph from "graphology";
import Sigma from "sigma";
import forceAtlas2 from "graphology-layout-forceatlas2";
// The package's own web-worker function and matrix helpers: the page drives the worker itself, so that
// it can run many iterations between two (costly, at 10k notes) position updates of the renderer.
import fa2Worker from "graphology-layout-forceatlas2/webworker.js";
import * as fa2Helpers from "graphology-layout-forceatlas2/helpers.js";
import fa2Defaults from "graphology-layout-forceatlas2/defaults.js";
window.MdmemGraphLib = { Graph, Sigma, forceAtlas2, fa2Worker, fa2Helpers, fa2Defaults };
JS

banner="/* mdmem graph bundle: sigma@$SIGMA graphology@$GRAPHOLOGY graphology-layout-forceatlas2@$FA2"
banner="$banner graphology-utils@$GRAPHOLOGY_UTILS events@$EVENTS; built by scripts/build_graph_js.sh"
banner="$banner with esbuild@$ESBUILD; licences in LICENSES.txt */"
npx --no-install esbuild entry.js --bundle --minify --format=iife --target=es2019 \
  --legal-comments=none --charset=utf8 --metafile=meta.json --banner:js="$banner" \
  --log-level=warning --outfile=graph.bundle.js

# LICENSES.txt: the licence text of every npm package whose code is in the bundle (from esbuild's metafile)
node - <<'NODE' > LICENSES.txt
const fs = require("fs"), path = require("path");
const meta = JSON.parse(fs.readFileSync("meta.json", "utf8"));
const names = new Set();
for (const input of Object.keys(meta.inputs)) {
  const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (m) names.add(m[1]);
}
console.log("Third-party JavaScript inlined into pages written by `mdmem graph html`");
console.log("(mdmem/assets/graph.bundle.js, built by scripts/build_graph_js.sh from the npm registry).");
for (const name of [...names].sort()) {
  const dir = path.join("node_modules", name);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  const lic = fs.readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(f));
  if (!lic) throw new Error("no licence file in " + name);
  console.log("\n" + "=".repeat(78));
  console.log(`${name}@${pkg.version} (${pkg.license})${pkg.homepage ? " " + pkg.homepage : ""}`);
  console.log("=".repeat(78) + "\n");
  console.log(fs.readFileSync(path.join(dir, lic), "utf8").trim());
}
NODE

if grep -qi '</script' graph.bundle.js; then echo "bundle contains </script" >&2; exit 1; fi
cp graph.bundle.js LICENSES.txt "$out/"
echo "wrote $out/graph.bundle.js ($(wc -c < "$out/graph.bundle.js") bytes) and $out/LICENSES.txt"
