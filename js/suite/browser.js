// SPDX-License-Identifier: MIT
// The browser suite, the same in a page, a Web Worker and a service worker:
// the suites' cases (cases.js) with their files fetched from the test's
// server, and the checks of what only a browser does (models by URL, the
// module fetched, errors with their status). It is given the package's
// namespace (import * as ort from 'onyx-runtime'), as each page or worker
// imports it: through an import map, esbuild or Vite.
import { runCases } from './cases.js';
import { oneNodeModel } from './model.js';

const CHAIN = '/examples/chain.onnx'; // served by the test from the repository
const X = [-4, -3, -2, -0.5, 0.5, 2, 3, 4];
const FLOOR = '-4 -3 -2 -1 0 2 3 4';

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** Runs chain.onnx from source and says why its floor output is wrong, or null. */
async function chainFloor(ort, source, ...rest) {
  const session = await ort.InferenceSession.create(source, ...rest);
  try {
    const { floor } = await session.run({ x: new ort.Tensor('float32', X, [8]) });
    const got = Array.from(floor.data).join(' ');
    return got === FLOOR ? null : `floor gave ${got}`;
  } finally {
    await session.release();
  }
}

/** What only a browser shows: [name, check], each check resolving to null or why it failed. */
function browserChecks(ort, base) {
  return [
    ['a model by URL string', () => chainFloor(ort, CHAIN)],
    ['a model by URL object', () => chainFloor(ort, new URL(CHAIN, base))],
    ['a model in an ArrayBuffer at an offset', async () => {
      const model = await fetchBytes(new URL(CHAIN, base));
      const buffer = new ArrayBuffer(model.length + 16);
      new Uint8Array(buffer, 8).set(model);
      return chainFloor(ort, buffer, 8, model.length);
    }],
    ['a missing model is an OnyxError', async () => {
      try {
        await ort.InferenceSession.create('/examples/nosuch.onnx');
        return 'it loaded';
      } catch (e) {
        return e instanceof ort.OnyxError && e.status === 'ONYX_IO' && /HTTP 404/.test(e.message) ? null
          : `${e.name} ${e.status}: ${e.message}`;
      }
    }],
    ['onnxruntime-web\'s execution provider name', () => chainFloor(ort, CHAIN, { executionProviders: ['wasm'] })],
    ['float16 outputs as the browser\'s Float16Array', async () => {
      const session = await ort.InferenceSession.create(oneNodeModel('Ceil', ['x'], 10, ['N']));
      const { y } = await session.run({ x: new ort.Tensor('float16', Uint16Array.from([0x3e00, 0xfe01]), [2]) });
      const bits = Array.from(new Uint16Array(y.data.buffer, y.data.byteOffset, 2)).join();
      const want = typeof Float16Array === 'undefined' ? Uint16Array : Float16Array;
      await session.release();
      if (bits !== `${0x4000},${0xfe01}`) return `bits ${bits}`;
      return y.data instanceof want ? null : `data is ${y.data.constructor.name}`;
    }],
    ['metadata and names that are object keys', async () => {
      const model = oneNodeModel('Floor', ['constructor'], 1, ['N'], 13, '__proto__');
      const session = await ort.InferenceSession.create(model);
      const shape = session.inputMetadata[0].shape.join();
      const result = await session.run({ constructor: new ort.Tensor('float32', [-0.5], [1]) });
      await session.release();
      if (shape !== 'N') return `shape ${shape}`;
      return Object.keys(result).join() === '__proto__' ? null : `keys ${Object.keys(result)}`;
    }],
    ['env.versions.onyx and info()', async () => {
      const { version, isa } = await ort.info();
      return ort.env.versions.onyx === version && isa === 'wasm-simd128' ? null : `${version} ${isa}`;
    }],
  ];
}

/**
 * Runs the browser suite; base is the page's or worker's URL. Resolves to
 * { cases (as runCases reports them), checks: [{ name, why }], versions,
 * userAgent, seconds }. onProgress(text) is told how far it is.
 */
export async function runSuite(ort, base, onProgress = () => {}) {
  const start = performance.now();
  // The cases' files come in one fetch (cases.bin, the files end to end;
  // cases.json says where each is): thousands of small fetches took most
  // of the time. Two models in three are fetched by the package itself.
  const list = await (await fetch(new URL('/cases.json', base))).json();
  const blob = await fetchBytes(new URL('/cases.bin', base));
  const at = new Map(list.map((c) => [`${c.suite}/${c.name}`, c.at]));
  const path = (suite, name, file) => `/cases/${suite}/${encodeURIComponent(name)}/${file}`;
  const io = {
    local: false,
    read: async (suite, name, file) => {
      const [offset, length] = at.get(`${suite}/${name}`)[file] ?? [];
      if (offset === undefined) throw new Error(`${suite}/${name}/${file}: not in cases.bin`);
      return blob.subarray(offset, offset + length);
    },
    source: (suite, name, file, asUrl) => (asUrl ? new URL(path(suite, name, file), base) : path(suite, name, file)),
  };
  const cases = await runCases(ort, list, io, (done, total) => onProgress(`case ${done} of ${total}`));
  const checks = [];
  for (const [name, check] of browserChecks(ort, base)) {
    let why;
    try {
      why = await check();
    } catch (e) {
      why = `${e.status ?? e.name}: ${e.message}`;
    }
    checks.push({ name, why });
  }
  return {
    cases, checks, versions: { ...ort.env.versions }, userAgent: navigator.userAgent,
    seconds: (performance.now() - start) / 1000,
  };
}

/** Whether a report says every case and check passed. */
export const passed = (report) => report.cases.failures.length === 0 && report.checks.every((c) => c.why === null);
