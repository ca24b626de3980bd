// SPDX-License-Identifier: MIT
// The page of the Web Worker run: the suite runs in worker.js (a module
// worker bundled by esbuild), which gets the module's bytes from here.
import { runInWorker } from './page.js';

runInWorker('Web Worker', (done, fail) => {
  const worker = new Worker(new URL('./worker.js', location.href), { type: 'module' });
  worker.onmessage = ({ data }) => done(data);
  worker.onerror = (e) => fail(new Error(e.message || 'the worker failed to load'));
  worker.postMessage({ wasm: new URL('/app/node_modules/onyx-runtime/onyx-lib.wasm', location.href).href });
});
