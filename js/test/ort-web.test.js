// SPDX-License-Identifier: MIT
// A script written for onnxruntime-web (test/ort-web-app/app.js, as its
// users write it) runs unchanged in Node.js against onyx's backend: the
// packed package is installed under the name onnxruntime-web, as an npm
// alias ("onnxruntime-web": "npm:onyx-runtime@0.2.0") installs it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { installPacked, jsDir, noWasm } from '../tools/helpers.js';

test('a script written for onnxruntime-web runs unchanged', { skip: noWasm }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'onyx-ort-web-'));
  try {
    installPacked(dir, path.join(dir, 'node_modules'), 'onnxruntime-web');
    writeFileSync(path.join(dir, 'package.json'), '{"name": "app", "private": true, "type": "module"}\n');
    cpSync(path.join(jsDir, 'test', 'ort-web-app', 'app.js'), path.join(dir, 'app.js'));
    cpSync(path.join(jsDir, '..', 'examples', 'chain.onnx'), path.join(dir, 'chain.onnx'));
    const out = execFileSync(process.execPath, ['app.js'], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
    assert.equal(out, 'floor: -4,-3,-2,-1,0,2,3,4\ninputs: x, outputs: clipped,sign,floor\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
