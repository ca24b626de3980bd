#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Builds the CommonJS entry, lib/node.cjs, from the ES modules of lib/
// (node.js and what it imports) with esbuild, and its types, lib/index.d.cts
// (the same declarations as lib/index.d.ts). onnxruntime-common stays a
// require() of the package, so that a CommonJS program and onnxruntime-node
// share the backend registry with onyx. Both files are built, never
// committed; npm pack runs this (prepack), and so does js/build.sh.
import { copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const lib = fileURLToPath(new URL('../lib/', import.meta.url));
await build({
  entryPoints: [`${lib}node.js`],
  outfile: `${lib}node.cjs`,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  external: ['onnxruntime-common'],
  // node.js finds onyx-lib.wasm from import.meta.url, which CommonJS has not.
  define: { 'import.meta.url': 'importMetaUrl' },
  banner: { js: "// SPDX-License-Identifier: MIT\n// Built from node.js by tools/build-cjs.mjs.\n" +
    "const importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});
copyFileSync(`${lib}index.d.ts`, `${lib}index.d.cts`);
