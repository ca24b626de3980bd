// SPDX-License-Identifier: MIT
// The CommonJS entry's types: require('onyx-runtime') in a .cts file.
import ort = require('onyx-runtime');

export async function signs(values: number[]): Promise<number[]> {
  const session = await ort.InferenceSession.create('sign.onnx', { executionProviders: ['onyx'] });
  const { y } = await session.run({ x: new ort.Tensor('float32', values, [values.length]) });
  return Array.from(y.data as Float32Array);
}
