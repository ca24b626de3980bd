// SPDX-License-Identifier: MIT
// A TypeScript program against onyx-runtime, checked by tsc --strict
// (test/types.test.js): onnxruntime-common's types, with onyx's additions.
import * as ort from 'onyx-runtime';

ort.env.wasm.wasmPaths = { wasm: new URL('./onyx-lib.wasm', import.meta.url) };

async function floorOf(values: readonly number[]): Promise<Float32Array> {
  const options: ort.InferenceSession.SessionOptions = {
    executionProviders: [{ name: 'onyx', isa: 'scalar' }, 'wasm'],
    graphOptimizationLevel: 'all',
    freeDimensionOverrides: { N: values.length },
  };
  const session = await ort.InferenceSession.create(new URL('./chain.onnx', import.meta.url), options);
  try {
    for (const m of session.inputMetadata) {
      if (m.isTensor) console.log(m.name, m.type, m.shape.map((d) => (typeof d === 'string' ? d : d.toFixed(0))));
    }
    const x = new ort.Tensor('float32', Float32Array.from(values), [values.length]);
    const all: ort.InferenceSession.ReturnType = await session.run({ x });
    const some = await session.run({ x }, ['floor'], { logSeverityLevel: 0 });
    const floor: ort.Tensor = some.floor ?? all.floor;
    return floor.data as Float32Array;
  } catch (e) {
    if (e instanceof ort.OnyxError) console.error(e.status, e.message);
    throw e;
  } finally {
    await session.release();
  }
}

async function main(): Promise<void> {
  const { version, isa } = await ort.info();
  const decoded = await ort.decodeTensor(new Uint8Array(0));
  const name: string | null = decoded.name;
  console.log(version, isa, name, decoded.type, ort.BACKEND_NAME, await floorOf([-1.5, 0.5]));
}

main();
