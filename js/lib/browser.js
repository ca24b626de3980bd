// SPDX-License-Identifier: MIT
// onyx-runtime in browsers, Web Workers, service workers and extensions
// (package.json's "browser" and default condition): onyx as an
// onnxruntime-common backend, and onnxruntime-common's API re-exported.
//
//   import * as ort from 'onyx-runtime';
//   const session = await ort.InferenceSession.create('model.onnx'); // fetched
//   const { y } = await session.run({ x: new ort.Tensor('float32', [-1.5, 0.5], [2]) });
//
// Models named by a string or a URL are fetched; onyx-lib.wasm is fetched
// from env.wasm.wasmPaths, or taken from env.wasm.wasmBinary, or by default
// from next to this folder. Nothing here imports a node: module, and there
// is no dynamic import(), which service workers forbid.
import { register } from './backend.js';
import { fetchUrl, setPlatform } from './module.js';

setPlatform({ fetchBytes: fetchUrl, defaultWasm: new URL('../onyx-lib.wasm', import.meta.url) });
register((url) => url.href);

export * from 'onnxruntime-common';
export { BACKEND_NAME } from './backend.js';
export { decodeTensor, info, OnyxError } from './module.js';
