// SPDX-License-Identifier: MIT
// What the types refuse: each line below must be a type error (tsc fails
// on a @ts-expect-error that has none), so the types are not any.
import * as ort from 'onyx-runtime';

export async function wrong(session: ort.InferenceSession): Promise<void> {
  // @ts-expect-error: the onyx execution provider's isa is 'scalar' or 'wasm-simd128'
  await ort.InferenceSession.create('m.onnx', { executionProviders: [{ name: 'onyx', isa: 'avx512' }] });
  // @ts-expect-error: not an element type
  new ort.Tensor('complex64', [1], [1]);
  // @ts-expect-error: feeds map names to tensors
  await session.run({ x: [1, 2, 3] });
  // @ts-expect-error: status is a string
  const status: number = new ort.OnyxError('m', 'ONYX_IO').status;
  void status;
}
