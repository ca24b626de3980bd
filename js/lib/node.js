// SPDX-License-Identifier: MIT
// onyx-runtime in Node.js (package.json's "node" condition; node.cjs is
// this file built for require()): onyx as an onnxruntime-common backend,
// and onnxruntime-common's API re-exported.
//
//   import * as ort from 'onyx-runtime';
//   const session = await ort.InferenceSession.create('model.onnx'); // a path
//
// A model named by a string is read from a path or a file: URL, or fetched
// from an http(s): URL; onyx-lib.wasm is read from next to this folder
// unless env.wasm.wasmPaths or env.wasm.wasmBinary says otherwise.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import { register } from './backend.js';
import { fetchUrl, OnyxError, setPlatform } from './module.js';

const WEB_SCHEMES = ['http:', 'https:', 'data:', 'blob:'];

/** A path, or a URL (a scheme of two letters or more: C:\ is a path). */
function parse(source) {
  if (source instanceof URL) return source;
  return /^[a-z][a-z0-9+.-]+:/i.test(source) ? new URL(source) : source;
}

async function fetchBytes(source, what) {
  const where = parse(source);
  if (where instanceof URL && WEB_SCHEMES.includes(where.protocol)) return fetchUrl(where, what);
  try {
    // A file: URL or a path; any other scheme fails here, naming it.
    return await readFile(where instanceof URL ? fileURLToPath(where) : where);
  } catch (e) {
    const why = e.code === 'EISDIR' ? 'it is a folder, not a file' : e.message;
    throw new OnyxError(`cannot read the ${what} '${source}': ${why}`, 'ONYX_IO');
  }
}

setPlatform({ fetchBytes, defaultWasm: new URL('../onyx-lib.wasm', import.meta.url) });
register((url) => (url.protocol === 'file:' ? fileURLToPath(url) : url.href));

export * from 'onnxruntime-common';
export { BACKEND_NAME } from './backend.js';
export { decodeTensor, info, OnyxError } from './module.js';
