// SPDX-License-Identifier: MIT
// The suites' cases through the JavaScript API in Node.js (tools/cases.js,
// which test/browser.test.js runs in Chromium too): every output of each
// conformance case bit for bit, every bad model failing with its status
// and messages.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';

import * as ort from 'onyx-runtime';
import { runCases, summary } from '../suite/cases.js';
import { noWasm, suiteCases } from '../tools/helpers.js';

const cases = noWasm ? [] : suiteCases();
const skip = noWasm || (cases.length === 0 && 'no cases: set ONYX_JS_CASES, or install libonnx-testdata');
const dirOf = new Map(cases.map((c) => [`${c.suite}/${c.name}`, c.dir]));
const file = (suite, name, f) => path.join(dirOf.get(`${suite}/${name}`), f);

test('the suites\' cases, bit for bit', { skip }, async (t) => {
  const io = {
    local: true,
    read: async (suite, name, f) => readFileSync(file(suite, name, f)),
    // A path, or a file: URL object.
    source: (suite, name, f, asUrl) => (asUrl ? pathToFileURL(file(suite, name, f)) : file(suite, name, f)),
  };
  const report = await runCases(ort, cases, io);
  const { line, skips } = summary(report);
  t.diagnostic(`js: node cases: ${line}; ${report.skips.length} skipped`);
  for (const s of skips) t.diagnostic(`SKIP ${s}`);
  assert.deepEqual(report.failures, []);
});
