// SPDX-License-Identifier: MIT
// The README's JavaScript example runs as written, from the repository
// root (where its model is), with the package imported from here, and
// prints what its comment says.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';

import { jsDir, noWasm } from '../tools/helpers.js';

const root = path.dirname(jsDir.replace(/\/$/, ''));
const readme = path.join(root, 'README.md');

test('README example', { skip: noWasm || (!existsSync(readme) && 'no README.md (installed package)') }, () => {
  const block = readFileSync(readme, 'utf8').match(/```js\n([\s\S]*?)```/)[1];
  const lib = pathToFileURL(path.join(jsDir, 'lib', 'node.js')).href;
  const script = block.replace("from 'onyx-runtime'", `from '${lib}'`);
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  assert.equal(out.trim(), block.match(/\/\/ (-?\d[-\d ]*)\n/)[1].trim());
});
