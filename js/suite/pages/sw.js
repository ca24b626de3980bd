// SPDX-License-Identifier: MIT
// The suite in a service worker (bundled by esbuild as an ES module):
// env.wasm.wasmPaths is a prefix, as onnxruntime-web's users give it; the
// worker also answers fetch('./floor?x=...') by running chain.onnx.
import * as ort from 'onyx-runtime';
import { runSuite } from '../browser.js';

ort.env.wasm.wasmPaths = '/app/node_modules/onyx-runtime/';

let chain = null;
async function floor(request) {
  chain ??= ort.InferenceSession.create('/examples/chain.onnx');
  const x = new URL(request.url).searchParams.get('x').split(',').map(Number);
  const { floor: y } = await (await chain).run({ x: new ort.Tensor('float32', x, [x.length]) });
  return new Response(Array.from(y.data).join(' '));
}

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => {
  if (new URL(event.request.url).pathname.endsWith('/floor')) event.respondWith(floor(event.request));
});
self.addEventListener('message', (event) => {
  event.waitUntil(runSuite(ort, self.location.href).then(
    (report) => event.source.postMessage(report),
    (e) => event.source.postMessage({ error: { name: e.name, status: e.status, message: e.message, stack: e.stack } }),
  ));
});
