// SPDX-License-Identifier: MIT
// One test per JavaScript finding of issue 25, each as a user meets it,
// through the package's name. Each of them failed with the hand-written
// API of ec8e4ea (js/lib/index.js); they pass with onnxruntime-common's
// API and onyx as its backend.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';

import * as ort from 'onyx-runtime';
import { jsDir, noDeps, noWasm, oneNodeModel } from '../tools/helpers.js';

const { InferenceSession, Tensor } = ort;
const chainPath = path.join(jsDir, '..', 'examples', 'chain.onnx');
const x8 = () => new Tensor('float32', Float32Array.from([-4, -3, -2, -0.5, 0.5, 2, 3, 4]), [8]);
const FLOOR = [-4, -3, -2, -1, 0, 2, 3, 4];

/** Asserts that promise rejects with an onyx error of status whose message matches. */
async function rejectsWith(promise, status, message) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof ort.OnyxError, `${e} is an OnyxError`);
    assert.equal(e.status, status);
    assert.match(e.message, message);
    return true;
  });
}

/** Runs an ES module script in a fresh Node.js process (a fresh module load) in dir. */
function node(script, dir = jsDir) {
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8' });
}

test('the API is onnxruntime-common\'s: same InferenceSession, Tensor and env', async () => {
  const common = await import('onnxruntime-common');
  assert.equal(ort.InferenceSession, common.InferenceSession);
  assert.equal(ort.Tensor, common.Tensor);
  assert.equal(ort.env, common.env);
  assert.equal(typeof ort.registerBackend, 'function');
});

test('onnxruntime-common\'s own InferenceSession runs onyx when executionProviders names it', { skip: noWasm },
  async () => {
    const common = await import('onnxruntime-common');
    const s = await common.InferenceSession.create(chainPath, { executionProviders: ['onyx'] });
    const { floor } = await s.run({ x: new common.Tensor('float32', x8().data, [8]) });
    assert.deepEqual(Array.from(floor.data), FLOOR);
    await s.release();
  });

test('an unknown execution provider fails as onnxruntime\'s does; an unavailable one falls back', { skip: noWasm },
  async () => {
    await assert.rejects(InferenceSession.create(chainPath, { executionProviders: ['nosuch'] }),
      /no available backend found. ERR: \[nosuch\] backend not found/);
    const s = await InferenceSession.create(chainPath, { executionProviders: ['nosuch', 'onyx'] });
    assert.deepEqual(s.outputNames, ['clipped', 'sign', 'floor']);
    await s.release();
  });

test('session options: onnxruntime-web\'s checks, fallbacks, refusals', { skip: noWasm }, async () => {
  const bytes = readFileSync(chainPath);
  await rejectsWith(InferenceSession.create(bytes, { graphOptimizationLevel: 'most' }), 'ONYX_INVALID_ARGUMENT',
    /unsupported graph optimization level: most/);
  await rejectsWith(InferenceSession.create(bytes, { logSeverityLevel: 7 }), 'ONYX_INVALID_ARGUMENT',
    /log severity level is not valid: 7/);
  await rejectsWith(InferenceSession.create(bytes, { externalData: [{ path: 'w.bin', data: new Uint8Array(4) }] }),
    'ONYX_EXTERNAL_DATA', /externalData/);
  await rejectsWith(InferenceSession.create(bytes, { preferredOutputLocation: 'gpu-buffer' }),
    'ONYX_INVALID_ARGUMENT', /gpu-buffer/);
  await rejectsWith(InferenceSession.create(bytes, { executionProviders: [{ name: 'onyx', isa: 'bogus' }] }),
    'ONYX_INVALID_ARGUMENT', /unknown isa 'bogus'/);
  // Accepted with a fallback: one thread, onyx's own planning and fusion.
  const s = await InferenceSession.create(bytes, {
    executionProviders: [{ name: 'onyx', isa: 'scalar' }], intraOpNumThreads: 4, executionMode: 'parallel',
    graphOptimizationLevel: 'disabled', enableCpuMemArena: false, enableMemPattern: false, logSeverityLevel: 0,
  });
  assert.deepEqual(Array.from((await s.run({ x: x8() })).floor.data), FLOOR);
  await rejectsWith(s.run({ x: x8() }, { logSeverityLevel: -1 }), 'ONYX_INVALID_ARGUMENT', /log severity/);
  await s.release();
});

test('run(feeds, fetches) and run(feeds, options) return the outputs', { skip: noWasm }, async () => {
  const s = await InferenceSession.create(chainPath);
  const byObject = await s.run({ x: x8() }, { floor: null });
  assert.deepEqual(Object.keys(byObject), ['floor']);
  assert.deepEqual(Array.from(byObject.floor.data), FLOOR);
  assert.deepEqual(Object.keys(await s.run({ x: x8() }, ['sign', 'floor'])), ['sign', 'floor']);
  const withOptions = await s.run({ x: x8() }, { logSeverityLevel: 0 });
  assert.deepEqual(Object.keys(withOptions), ['clipped', 'sign', 'floor']);
  // A Tensor given in fetches receives the output.
  const into = new Tensor('float32', new Float32Array(8), [8]);
  const filled = await s.run({ x: x8() }, { floor: into });
  assert.equal(filled.floor, into);
  assert.deepEqual(Array.from(into.data), FLOOR);
  await s.release();
});

test('fetches naming an output that does not exist throw', { skip: noWasm }, async () => {
  const s = await InferenceSession.create(chainPath);
  await assert.rejects(s.run({ x: x8() }, ['floor', 'nosuch']), /nosuch/);
  await s.release();
});

test('create(buffer, byteOffset, byteLength) reads only those bytes', { skip: noWasm }, async () => {
  const model = readFileSync(chainPath);
  const buffer = new ArrayBuffer(model.length + 64);
  new Uint8Array(buffer).fill(0xff);
  new Uint8Array(buffer, 24, model.length).set(model);
  const s = await InferenceSession.create(buffer, 24, model.length);
  assert.deepEqual(Array.from((await s.run({ x: x8() })).floor.data), FLOOR);
  await s.release();
  // A Node.js Buffer from the shared pool is a view at an offset.
  const pooled = Buffer.from(model);
  const t = await InferenceSession.create(pooled.buffer, pooled.byteOffset, pooled.byteLength);
  await t.release();
});

test('an int64 tensor from numbers', { skip: noWasm }, async () => {
  const x = new Tensor('int64', [-5, 0, 7], [3]);
  assert.deepEqual(Array.from(x.data), [-5n, 0n, 7n]);
  const s = await InferenceSession.create(oneNodeModel('Sign', ['x'], 7, [3]));
  const { y } = await s.run({ x });
  assert.deepEqual(Array.from(y.data), [-1n, 0n, 1n]);
  await s.release();
});

test('inputMetadata and outputMetadata, symbolic dimensions by name', { skip: noWasm }, async () => {
  const s = await InferenceSession.create(oneNodeModel('Ceil', ['x'], 10, ['N', 3]));
  assert.deepEqual(s.inputMetadata, [{ name: 'x', isTensor: true, type: 'float16', shape: ['N', 3] }]);
  assert.deepEqual(s.outputMetadata, [{ name: 'y', isTensor: true, type: 'float16', shape: ['N', 3] }]);
  await s.release();
  const fixed = await InferenceSession.create(oneNodeModel('Ceil', ['x'], 1, ['N', 3]),
    { freeDimensionOverrides: { N: 2 } });
  assert.deepEqual(fixed.inputMetadata[0].shape, [2, 3]);
  await rejectsWith(fixed.run({ x: new Tensor('float32', new Float32Array(3), [1, 3]) }), 'ONYX_INPUT_SHAPE',
    /freeDimensionOverrides/);
  await fixed.release();
});

test('a missing file is an OnyxError', { skip: noWasm }, async () => {
  await rejectsWith(InferenceSession.create('/nonexistent/model.onnx'), 'ONYX_IO', /\/nonexistent\/model.onnx/);
});

test('paths, file: URLs (string and URL) and http: URLs', { skip: noWasm }, async () => {
  const server = createServer((req, res) => {
    if (req.url === '/chain.onnx') res.end(readFileSync(chainPath));
    else res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const base = `http://127.0.0.1:${server.address().port}`;
    const url = pathToFileURL(chainPath);
    for (const source of [chainPath, url.href, url, `${base}/chain.onnx`, new URL('/chain.onnx', base)]) {
      const s = await InferenceSession.create(source);
      assert.deepEqual(Array.from((await s.run({ x: x8() })).floor.data), FLOOR, `${source}`);
      await s.release();
    }
    await rejectsWith(InferenceSession.create(`${base}/nosuch.onnx`), 'ONYX_IO', /HTTP 404/);
  } finally {
    server.close();
  }
});

test('names that are JavaScript object keys', { skip: noWasm }, async () => {
  const s = await InferenceSession.create(oneNodeModel('Floor', ['constructor'], 1, [2], 13, '__proto__'));
  assert.deepEqual(s.inputNames, ['constructor']);
  assert.deepEqual(s.outputNames, ['__proto__']);
  await rejectsWith(s.run({}), 'ONYX_INPUT_MISSING', /'constructor'/);
  const feeds = { constructor: new Tensor('float32', [-0.5, 1.5], [2]) };
  for (const result of [await s.run(feeds), await s.run(feeds, ['__proto__'])]) {
    assert.deepEqual(Object.keys(result), ['__proto__']);
    assert.ok(Object.hasOwn(result, '__proto__'));
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
    assert.deepEqual(Array.from(result.__proto__.data), [-1, 1]);
  }
  await s.release();
});

test('env.wasm.wasmPaths and env.wasm.wasmBinary say where the module is', { skip: noWasm }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'onyx-wasm-paths-'));
  try {
    const prefix = `import * as ort from 'onyx-runtime';\n`;
    // A prefix where the module is not: create fails, naming where it looked.
    const missing = node(`${prefix}ort.env.wasm.wasmPaths = '${dir}/';
      await ort.InferenceSession.create('${chainPath}').catch((e) => console.log(e.message));`);
    assert.match(missing, new RegExp(`${dir}/onyx-lib.wasm`));
    // The module's bytes given: the wrong path is never read.
    const out = node(`${prefix}import { readFileSync } from 'node:fs';
      ort.env.wasm.wasmPaths = { wasm: '${dir}/nothing.wasm' };
      ort.env.wasm.wasmBinary = readFileSync(new URL(import.meta.resolve('onyx-runtime/onyx-lib.wasm')));
      const s = await ort.InferenceSession.create('${chainPath}');
      const { floor } = await s.run({ x: new ort.Tensor('float32', [-4, -3, -2, -0.5, 0.5, 2, 3, 4], [8]) });
      console.log(Array.from(floor.data).join(' '));`);
    assert.equal(out.trim(), FLOOR.join(' '));
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('require() gets the CommonJS entry, with onnxruntime-common\'s CommonJS API', { skip: noWasm }, () => {
  const script = `
    const ort = require('onyx-runtime');
    const common = require('onnxruntime-common');
    (async () => {
      const s = await common.InferenceSession.create(${JSON.stringify(chainPath)}, { executionProviders: ['onyx'] });
      const { floor } = await s.run({ x: new ort.Tensor('float32', [-4, -3, -2, -0.5, 0.5, 2, 3, 4], [8]) });
      console.log(ort.InferenceSession === common.InferenceSession, typeof ort.OnyxError, floor.data.join(' '));
    })();`;
  const out = execFileSync(process.execPath, ['-e', script], { cwd: jsDir, encoding: 'utf8' });
  assert.equal(out.trim(), `true function ${FLOOR.join(' ')}`);
});

test('esbuild --bundle --platform=browser: no node: module, no import(), the module exported', { skip: noDeps },
  async () => {
    const { build } = await import('esbuild');
    const dir = mkdtempSync(path.join(tmpdir(), 'onyx-esbuild-'));
    try {
      const entry = path.join(dir, 'app.js');
      writeFileSync(entry, "import * as ort from 'onyx-runtime';\nimport wasm from 'onyx-runtime/onyx-lib.wasm';\n" +
        'ort.env.wasm.wasmPaths = { wasm };\n');
      // The package as installed, by a link: esbuild reads its exports map.
      mkdirSync(path.join(dir, 'node_modules'));
      symlinkSync(jsDir, path.join(dir, 'node_modules', 'onyx-runtime'));
      const result = await build({
        entryPoints: [entry], bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true,
        outdir: path.join(dir, 'out'), loader: { '.wasm': 'file' }, logLevel: 'silent',
      });
      const imports = Object.values(result.metafile.inputs).flatMap((i) => i.imports);
      assert.deepEqual(imports.filter((i) => i.path.startsWith('node:') || i.kind === 'dynamic-import'), []);
      assert.ok(Object.keys(result.metafile.inputs).some((f) => f.endsWith('lib/browser.js')), 'the browser entry');
      assert.ok(result.outputFiles.some((f) => f.path.endsWith('.wasm')), 'the module is a file of the build');
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

