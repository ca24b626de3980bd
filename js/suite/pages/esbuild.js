// SPDX-License-Identifier: MIT
// The suite bundled by esbuild (--bundle --platform=browser): the module
// is imported as a file (esbuild's file loader copies it into the build
// and gives its URL), and env.wasm.wasmPaths says where it is, as
// onnxruntime-web's users set it.
import * as ort from 'onyx-runtime';
import wasmUrl from 'onyx-runtime/onyx-lib.wasm';
import { runInPage } from './page.js';

ort.env.wasm.wasmPaths = { wasm: new URL(wasmUrl, import.meta.url) };
runInPage(ort, 'esbuild');
