// SPDX-License-Identifier: MIT
// The suite built by Vite, with nothing configured: Vite finds the
// package's new URL('../onyx-lib.wasm', import.meta.url) and emits the
// module as an asset of the build.
import * as ort from 'onyx-runtime';
import { runInPage } from './page.js';

runInPage(ort, 'Vite');
