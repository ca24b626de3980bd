// SPDX-License-Identifier: MIT
// A minimal ONNX model writer (protobuf by hand) for one-node models, for
// the tests in Node.js and in browsers (it imports nothing).

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

