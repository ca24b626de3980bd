// SPDX-License-Identifier: MIT
// The suite with no bundler: importmap.html maps 'onyx-runtime' and
// 'onnxruntime-common' to their ES modules, and onyx-lib.wasm is fetched
// from its default place, next to the package's lib/.
import * as ort from 'onyx-runtime';
import { runInPage } from './page.js';

runInPage(ort, 'import map');
