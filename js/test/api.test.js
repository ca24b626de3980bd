// SPDX-License-Identifier: MIT
// The API, imported by the package's name as users do: every type round
// trip, errors with onyx's message and status, wrong input type and shape,
// paths and bytes, release.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { info, InferenceSession, OnyxError, Tensor } from 'onyx-runtime';
import { noWasm, oneNodeModel, sameBits } from '../tools/helpers.js';

// ONNX element type, typed array, and values that cover the type's ends
// (for float16 and bfloat16, bit patterns: -inf, -1.5, -0, NaN with a
// payload, 1, +inf). bfloat16, which onnxruntime-common has no type for,
// is a 'uint16' tensor of its bit patterns.
const TYPES = {
  float32: [1, Float32Array, [-Infinity, -1.5, -0, NaN, 1e-45, 3.4e38]],
  float64: [11, Float64Array, [-Infinity, -1.5, -0, NaN, 5e-324, 1.7e308]],
  int8: [3, Int8Array, [-128, -1, 0, 1, 127]],
  int16: [5, Int16Array, [-32768, -1, 0, 1, 32767]],
  int32: [6, Int32Array, [-2147483648, -1, 0, 1, 2147483647]],
  int64: [7, BigInt64Array, [-(2n ** 63n), -1n, 0n, 1n, 2n ** 63n - 1n]],
  uint8: [2, Uint8Array, [0, 1, 255]],
  uint16: [4, Uint16Array, [0, 1, 65535]],
  uint32: [12, Uint32Array, [0, 1, 4294967295]],
  uint64: [13, BigUint64Array, [0n, 1n, 2n ** 64n - 1n]],
  float16: [10, Uint16Array, [0xfc00, 0xbe00, 0x8000, 0x7e01, 0x3c00, 0x7c00]],
  bfloat16: [16, Uint16Array, [0xff80, 0xbfc0, 0x8000, 0x7fc1, 0x3f80, 0x7f80]],
};

test('info: version and isa', { skip: noWasm }, async () => {
  const { version, isa } = await info();
  assert.match(version, /^\d+\.\d+\.\d+$/);
  assert.equal(isa, 'wasm-simd128');
});

test('every type round trips (Clip without bounds is the identity)', { skip: noWasm }, async (t) => {
  for (const [type, [elem, Arr, values]] of Object.entries(TYPES)) {
    await t.test(type, async () => {
      const session = await InferenceSession.create(oneNodeModel('Clip', ['x'], elem, [values.length]));
      const tensorType = type === 'bfloat16' ? 'uint16' : type;
      const x = new Tensor(tensorType, Arr.from(values), [values.length]);
      const { y } = await session.run({ x });
      assert.ok(y.data instanceof x.data.constructor, `${type} comes back as ${x.data.constructor.name}`);
      assert.equal(y.type, tensorType);
      assert.equal(session.inputMetadata[0].type, type);
      assert.deepEqual(y.dims, [values.length]);
      assert.equal(y.size, values.length);
      assert.ok(sameBits(x, y), `${type}: ${y.data} != ${x.data}`);
      await session.release();
    });
  }
});

test('Sign and Ceil compute (2-D, float32)', { skip: noWasm }, async () => {
  const sign = await InferenceSession.create(oneNodeModel('Sign', ['x'], 1, [2, 3]));
  const x = new Tensor('float32', [-2.5, -0, 0, 0.25, 7, -1e-40], [2, 3]);
  const { y } = await sign.run({ x });
  assert.deepEqual(Array.from(y.data), [-1, 0, 0, 1, 1, -1]);
  assert.deepEqual(y.dims, [2, 3]);
  const ceil = await InferenceSession.create(oneNodeModel('Ceil', ['x'], 1, [2, 3]));
  assert.deepEqual(Array.from((await ceil.run({ x })).y.data), [-2, -0, 0, 1, 7, -0]);
  await sign.release();
  await ceil.release();
});

test('names, path and ArrayBuffer', { skip: noWasm }, async () => {
  const bytes = oneNodeModel('Floor', ['x'], 1, [1]);
  const dir = mkdtempSync(path.join(tmpdir(), 'onyx-js-'));
  try {
    const file = path.join(dir, 'floor.onnx');
    writeFileSync(file, bytes);
    for (const source of [file, bytes.buffer.slice(0)]) {
      const s = await InferenceSession.create(source);
      assert.deepEqual(s.inputNames, ['x']);
      assert.deepEqual(s.outputNames, ['y']);
      const { y } = await s.run({ x: new Tensor('float32', [-0.5], [1]) });
      assert.deepEqual(Array.from(y.data), [-1]);
      await s.release();
    }
  } finally {
    rmSync(dir, { recursive: true });
  }
});

/** Asserts that promise rejects with an OnyxError of status whose message matches. */
async function rejects(promise, status, message) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof OnyxError && e instanceof Error, `${e} is an OnyxError`);
    assert.equal(e.status, status);
    assert.match(e.message, message);
    return true;
  });
}

test('errors carry onyx message and status', { skip: noWasm }, async () => {
  await rejects(InferenceSession.create(Uint8Array.from([0xff, 0xff, 0xff])), 'ONYX_PARSE', /./);
  await rejects(InferenceSession.create(oneNodeModel('Relu', ['x'], 1, [1])), 'ONYX_UNSUPPORTED_OP',
    /Relu/);
  await rejects(InferenceSession.create(oneNodeModel('Ceil', ['x'], 6, [1])), 'ONYX_TYPE', /int32/);
  await rejects(InferenceSession.create('/nonexistent/model.onnx'), 'ONYX_IO', /ENOENT/);
  await assert.rejects(InferenceSession.create(42), TypeError);
});

test('wrong input type, shape, name; released session', { skip: noWasm }, async () => {
  const s = await InferenceSession.create(oneNodeModel('Ceil', ['x'], 1, [2]));
  await rejects(s.run({ x: new Tensor('float64', [1, 2], [2]) }), 'ONYX_INPUT_TYPE', /float/);
  await rejects(s.run({ x: new Tensor('bool', Uint8Array.from([1, 0]), [2]) }), 'ONYX_INPUT_TYPE', /./);
  await rejects(s.run({ x: new Tensor('float32', [1, 2, 3], [3]) }), 'ONYX_INPUT_SHAPE', /3/);
  await rejects(s.run({ x: new Tensor('float32', [1, 2], [1, 2]) }), 'ONYX_INPUT_SHAPE', /rank/);
  await rejects(s.run({}), 'ONYX_INPUT_MISSING', /'x'/);
  await rejects(s.run({ x: new Tensor('float32', [1, 2], [2]), z: new Tensor('float32', [1], [1]) }),
    'ONYX_INVALID_ARGUMENT', /'z'/);
  await s.release();
  await rejects(s.run({ x: new Tensor('float32', [1, 2], [2]) }), 'ONYX_INVALID_ARGUMENT', /released/);
});

// The Tensor is onnxruntime-common's, with its errors.
test('Tensor checks its arguments', () => {
  assert.throws(() => new Tensor('float32', new Float64Array(2), [2]), TypeError);
  assert.throws(() => new Tensor('float32', [1, 2, 3], [2]), /size\(2\) does not match data length\(3\)/);
  assert.throws(() => new Tensor('complex64', [1], [1]), TypeError);
  assert.throws(() => new Tensor('float32', [1], [-1]), RangeError);
  const t = new Tensor(new Int32Array([1, 2, 3, 4]), [2, 2]);
  assert.equal(t.type, 'int32');
  assert.equal(t.size, 4);
  assert.deepEqual(new Tensor('int64', [1n, 2n]).dims, [2]);
});
