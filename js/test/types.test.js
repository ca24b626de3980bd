// SPDX-License-Identifier: MIT
// tsc --strict checks a TypeScript program against the packed package
// (test/ts-app/: ES module and CommonJS files, and lines that must be type
// errors), installed into a project as npm installs it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { installPacked, jsDir, noDeps, noWasm } from '../tools/helpers.js';

const tsc = path.join(jsDir, 'node_modules', 'typescript', 'bin', 'tsc');
const skip = noWasm || noDeps;

test('tsc --strict checks a TypeScript example', { skip }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'onyx-ts-'));
  try {
    installPacked(dir, path.join(dir, 'node_modules'));
    writeFileSync(path.join(dir, 'package.json'), '{"name": "app", "private": true, "type": "module"}\n');
    cpSync(path.join(jsDir, 'test', 'ts-app'), dir, { recursive: true });
    let out = '';
    try {
      out = execFileSync(process.execPath, [tsc, '-p', dir, '--strict'], { encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
    }
    assert.equal(out, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
