// SPDX-License-Identifier: MIT
// The page of the service worker run: registers sw.js (a module service
// worker, where import() is forbidden), asks it to run the suite, and
// fetches /floor, which the worker answers by running chain.onnx.
import { runInWorker } from './page.js';

async function floorFromWorker() {
  const x = '-4,-3,-2,-0.5,0.5,2,3,4';
  const response = await fetch(`./floor?x=${x}`);
  return { status: response.status, text: await response.text() };
}

runInWorker('service worker', async (done, fail) => {
  try {
    await navigator.serviceWorker.register('./sw.js', { type: 'module' });
    const registration = await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((ok) => navigator.serviceWorker.addEventListener('controllerchange', ok, { once: true }));
    }
    const floor = await floorFromWorker();
    navigator.serviceWorker.onmessage = ({ data }) => done(data.error ? data : {
      ...data, checks: [...data.checks, {
        name: 'the service worker answers fetch() with onyx',
        why: floor.status === 200 && floor.text === '-4 -3 -2 -1 0 2 3 4' ? null : `${floor.status} ${floor.text}`,
      }],
    });
    registration.active.postMessage('run');
  } catch (e) {
    fail(e);
  }
});
