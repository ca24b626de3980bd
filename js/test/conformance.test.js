// SPDX-License-Identifier: MIT
// The conformance cases through the JavaScript API: each case's inputs
// (test_data_set_N/input_K.pb, bound by position) run, and every output
// must equal output_K.pb bit for bit.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { decodeTensor, InferenceSession } from 'onyx-runtime';
import { caseDirs, noWasm, sameBits } from '../tools/helpers.js';

const cases = noWasm ? [] : caseDirs();
const skip = noWasm || (cases.length === 0 && 'no cases: set ONYX_JS_CASES, or install libonnx-testdata');

async function tensors(dir, prefix) {
  const files = readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith('.pb'));
  files.sort((a, b) => parseInt(a.slice(prefix.length), 10) - parseInt(b.slice(prefix.length), 10));
  return Promise.all(files.map(async (f) => (await decodeTensor(readFileSync(path.join(dir, f)))).tensor));
}

test('conformance cases, bit for bit', { skip }, async (t) => {
  for (const dir of cases) {
    await t.test(path.basename(dir), async () => {
      const session = await InferenceSession.create(path.join(dir, 'model.onnx'));
      try {
        const sets = readdirSync(dir).filter((d) => d.startsWith('test_data_set_'));
        assert.ok(sets.length > 0, 'the case has data sets');
        for (const set of sets) {
          const ins = await tensors(path.join(dir, set), 'input_');
          const want = await tensors(path.join(dir, set), 'output_');
          const feeds = Object.fromEntries(session.inputNames.map((n, i) => [n, ins[i]]));
          const got = await session.run(feeds);
          assert.equal(session.outputNames.length, want.length);
          session.outputNames.forEach((name, i) => {
            assert.ok(sameBits(got[name], want[i]), `${set} ${name}: ${got[name].data} != ${want[i].data}`);
          });
        }
      } finally {
        await session.release();
      }
    });
  }
});
