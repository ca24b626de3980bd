// SPDX-License-Identifier: MIT
// A script as onnxruntime-web's users write it (the shape of its quick
// start), kept unchanged: test/ort-web.test.js runs it in Node.js and
// test/browser.test.js in Chromium, each with 'onnxruntime-web' resolving
// to onyx-runtime (an npm alias; an import map).
import * as ort from 'onnxruntime-web';

// use an async context to call onnxruntime functions.
async function main() {
  try {
    ort.env.wasm.numThreads = 1;

    // create a new session and load the specific model.
    const session = await ort.InferenceSession.create('./chain.onnx', {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
    });

    // prepare inputs. a tensor need its corresponding TypedArray as data
    const dataX = Float32Array.from([-4, -3, -2, -0.5, 0.5, 2, 3, 4]);
    const tensorX = new ort.Tensor('float32', dataX, [8]);

    // prepare feeds. use model input names as keys.
    const feeds = { x: tensorX };

    // feed inputs and run
    const results = await session.run(feeds);

    // read from results
    const dataFloor = results.floor.data;
    console.log(`floor: ${dataFloor}`);
    console.log(`inputs: ${session.inputNames}, outputs: ${session.outputNames}`);
  } catch (e) {
    console.error(`failed to inference ONNX model: ${e}.`);
  }
}

main();
