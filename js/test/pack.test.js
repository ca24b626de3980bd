// SPDX-License-Identifier: MIT
// npm pack makes an installable package: the tarball installs into an
// empty project offline, and the installed package loads its module and
// runs a model, imported by name and required. Its one dependency,
// onnxruntime-common, is installed beside it from a tarball of the copy
// npm ci put in node_modules: npm ci fetches tarballs only, so offline npm
// has no registry metadata to resolve the dependency's range with.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { jsDir, noWasm, oneNodeModel } from '../tools/helpers.js';

const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: 'pipe' });

test('npm pack, npm install, import', { skip: noWasm }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'onyx-pack-'));
  try {
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], jsDir));
    const files = packed[0].files.map((f) => f.path).sort();
    for (const f of ['onyx-lib.wasm', 'lib/browser.js', 'lib/node.js', 'lib/node.cjs', 'lib/index.d.ts',
      'lib/index.d.cts', 'LICENSE']) {
      assert.ok(files.includes(f), `the tarball holds ${f}: ${files}`);
    }
    assert.ok(!files.some((f) => f.startsWith('test/')), 'and no tests');
    const app = path.join(dir, 'app');
    execFileSync('mkdir', [app]);
    writeFileSync(path.join(app, 'package.json'), '{"name": "app", "private": true}');
    const common = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir,
      path.join(jsDir, 'node_modules', 'onnxruntime-common')], jsDir));
    npm(['install', '--offline', '--no-audit', '--no-fund', path.join(dir, packed[0].filename),
      path.join(dir, common[0].filename)], app);
    assert.ok(readdirSync(path.join(app, 'node_modules')).includes('onyx-runtime'));
    writeFileSync(path.join(app, 'model.onnx'), oneNodeModel('Sign', ['x'], 1, [3]));
    const script = `
      import { InferenceSession, Tensor } from 'onyx-runtime';
      const s = await InferenceSession.create('model.onnx');
      const { y } = await s.run({ x: new Tensor('float32', [-3, 0, 2], [3]) });
      console.log(Array.from(y.data).join(' '));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' });
    assert.equal(out.trim(), '-1 0 1');
    const cjs = `
      const { InferenceSession, Tensor } = require('onyx-runtime');
      InferenceSession.create('model.onnx').then((s) => s.run({ x: new Tensor('float32', [-3, 0, 2], [3]) }))
        .then(({ y }) => console.log(Array.from(y.data).join(' ')));`;
    assert.equal(execFileSync(process.execPath, ['-e', cjs], { cwd: app, encoding: 'utf8' }).trim(), '-1 0 1');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
