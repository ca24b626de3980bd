// SPDX-License-Identifier: MIT
// Shared by the tests: where the library module and the cases are, and a
// minimal ONNX model writer (protobuf by hand) for one-node models.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const jsDir = fileURLToPath(new URL('..', import.meta.url));
/** Why the tests that need onyx-lib.wasm cannot run, or false. */
export const noWasm = existsSync(path.join(jsDir, 'onyx-lib.wasm'))
  ? false
  : 'onyx-lib.wasm is missing: build it (cmake target onyx_wasm_lib) and run js/build.sh';

/** The files of a case folder: its own, and those of its test_data_set_N/ folders. */
function caseFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name.startsWith('test_data_set_')) {
      for (const f of readdirSync(path.join(dir, entry.name)).sort()) files.push(`${entry.name}/${f}`);
    } else {
      // Other folders (a bad case's model.onnx can be one) end in '/'.
      files.push(entry.isDirectory() ? `${entry.name}/` : entry.name);
    }
  }
  return files.sort();
}

/** Debian's ONNX backend cases for onyx's ops: tests/conformance.cmake's ONYX_DEBIAN_CASES. */
function debianCases() {
  const root = '/usr/share/libonnx-testdata/data';
  const cmake = path.join(jsDir, '..', 'tests', 'conformance.cmake');
  if (!existsSync(root) || !existsSync(cmake)) return [];
  const list = readFileSync(cmake, 'utf8').match(/set\(ONYX_DEBIAN_CASES\s([^)]*)\)/)[1];
  return list.split(/\s+/).filter(Boolean).map((c) => ({ suite: 'debian', name: c.replace('/', '_'),
    dir: path.join(root, c) }));
}

/**
 * The cases the suites run, as [{ suite, name, dir, files }]: every case
 * folder under the folders of ONYX_JS_CASES (colon-separated; each
 * folder's name is its suite's: spec, ops, graphs, bad, as tests/gen
 * writes them and scripts/cross.sh passes them), and Debian's ONNX backend
 * data for onyx's ops where installed.
 */
export function suiteCases() {
  const cases = [];
  for (const parent of (process.env.ONYX_JS_CASES ?? '').split(':').filter(Boolean)) {
    for (const name of readdirSync(parent).sort()) {
      cases.push({ suite: path.basename(parent), name, dir: path.join(parent, name) });
    }
  }
  cases.push(...debianCases());
  return cases.filter((c) => existsSync(path.join(c.dir, 'model.onnx')))
    .map((c) => ({ ...c, files: caseFiles(c.dir) }));
}

/** Why the tests that need the npm dev dependencies cannot run, or false. */
export const noDeps = existsSync(path.join(jsDir, 'node_modules', 'esbuild'))
  ? false
  : 'no node_modules/: run npm ci in js/ (js/build.sh does)';

/**
 * npm pack of js/ into folder, the tarball unpacked into
 * nodeModules/<as> (what npm install puts there: as 'onnxruntime-web' it
 * is what an npm alias installs), with onnxruntime-common beside it.
 * Returns the packed files' paths.
 */
export function installPacked(folder, nodeModules, as = 'onyx-runtime') {
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', folder],
    { cwd: jsDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
  const dir = path.join(nodeModules, as);
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['xzf', path.join(folder, packed[0].filename), '-C', dir, '--strip-components=1']);
  cpSync(path.join(jsDir, 'node_modules', 'onnxruntime-common'), path.join(nodeModules, 'onnxruntime-common'),
    { recursive: true });
  return packed[0].files.map((f) => f.path);
}

export { oneNodeModel } from '../suite/model.js';
export { sameBits } from '../suite/cases.js';
