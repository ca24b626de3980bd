// SPDX-License-Identifier: MIT
// The suite in a Web Worker: the module's bytes are fetched here and given
// as env.wasm.wasmBinary, as onnxruntime-web's flag takes them.
import * as ort from 'onyx-runtime';
import { runSuite } from '../browser.js';

self.onmessage = async ({ data }) => {
  try {
    ort.env.wasm.wasmBinary = new Uint8Array(await (await fetch(data.wasm)).arrayBuffer());
    self.postMessage(await runSuite(ort, self.location.href));
  } catch (e) {
    self.postMessage({ error: { name: e.name, status: e.status, message: e.message, stack: e.stack } });
  }
};
