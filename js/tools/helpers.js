// SPDX-License-Identifier: MIT
// Shared by the tests: where the library module and the cases are, and a
// minimal ONNX model writer (protobuf by hand) for one-node models.
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const jsDir = fileURLToPath(new URL('..', import.meta.url));
/** Why the tests that need onyx-lib.wasm cannot run, or false. */
export const noWasm = existsSync(path.join(jsDir, 'onyx-lib.wasm'))
  ? false
  : 'onyx-lib.wasm is missing: build it (cmake target onyx_wasm_lib) and run js/build.sh';

/**
 * The conformance case folders (each with model.onnx and
 * test_data_set_N/): every case under the folders of ONYX_JS_CASES
 * (colon-separated; scripts/cross.sh passes the generated spec examples),
 * and Debian's ONNX backend data for onyx's ops where installed.
 */
export function caseDirs() {
  const dirs = [];
  for (const parent of (process.env.ONYX_JS_CASES ?? '').split(':').filter(Boolean)) {
    for (const name of readdirSync(parent).sort()) dirs.push(path.join(parent, name));
  }
  const debian = '/usr/share/libonnx-testdata/data/node';
  if (existsSync(debian)) {
    for (const name of readdirSync(debian).sort()) {
      if (/^test_(ceil|floor|sign|clip)/.test(name)) dirs.push(path.join(debian, name));
    }
  }
  return dirs.filter((d) => existsSync(path.join(d, 'model.onnx')));
}

// ---- A one-node ONNX model --------------------------------------------------

function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}
const field = (no, wire) => varint((no << 3) | wire);
const num = (no, n) => [...field(no, 0), ...varint(n)];
const bytes = (no, b) => [...field(no, 2), ...varint(b.length), ...b];
const str = (no, s) => bytes(no, [...new TextEncoder().encode(s)]);

/** A TensorShapeProto.Dimension: a size, or a symbolic name (a string). */
const dim = (d) => bytes(1, typeof d === 'string' ? str(2, d) : num(1, d));

/** ValueInfoProto: name, tensor of elemType with dims (null: no shape). */
function valueInfo(name, elemType, dims) {
  const shape = dims === null ? [] : bytes(2, dims.flatMap(dim));
  return [...str(1, name), ...bytes(2, bytes(1, [...num(1, elemType), ...shape]))];
}

/**
 * The bytes of a model with one node: op on inputs (names) giving output
 * (default 'y'), at ai.onnx opset `opset`; every input and the output of
 * ONNX type elemType, shape dims (numbers, or strings for symbolic
 * dimensions).
 */
export function oneNodeModel(op, inputs, elemType, dims, opset = 13, output = 'y') {
  const node = [...inputs.flatMap((i) => str(1, i)), ...str(2, output), ...str(4, op)];
  const graph = [
    ...bytes(1, node),
    ...str(2, 'g'),
    ...inputs.flatMap((i) => bytes(11, valueInfo(i, elemType, dims))),
    ...bytes(12, valueInfo(output, elemType, dims)),
  ];
  const model = [...num(1, 8), ...bytes(8, num(2, opset)), ...bytes(7, graph)];
  return Uint8Array.from(model);
}

/** Whether two tensors have the same type, dims and element bits. */
export function sameBits(a, b) {
  const bytesOf = (t) => new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const x = bytesOf(a);
  const y = bytesOf(b);
  return a.type === b.type && a.dims.join() === b.dims.join() && x.length === y.length &&
    x.every((v, i) => v === y[i]);
}
