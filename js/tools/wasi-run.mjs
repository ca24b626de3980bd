#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Runs a WASI command module (onyx.wasm, a test program) under Node as if
// it were a native program, for CTest (CMAKE_CROSSCOMPILING_EMULATOR) and
// scripts/cross.sh:
//
//   node --experimental-wasi-unstable-preview1 --no-warnings \
//     js/tools/wasi-run.mjs PROGRAM.wasm [ARGS...]
//
// (Node 18, Debian 12's, needs the flag; Node 20 accepts it.)
//
// The whole host file system is visible at the same paths (the preopen
// '/' is '/'), so absolute paths work as they do natively; relative paths
// resolve against '/', not the current folder: pass absolute paths. The
// environment is passed through (ONYX_ISA, ONYX_THREADS), and the program's
// exit status becomes this process's.
import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { WASI } from 'node:wasi';

const [program, ...args] = process.argv.slice(2);
if (program === undefined) {
  process.stderr.write('usage: wasi-run.mjs PROGRAM.wasm [ARGS...]\n');
  process.exit(2);
}
const wasi = new WASI({
  version: 'preview1',
  args: [program, ...args],
  env: process.env,
  preopens: { '/': '/' },
  returnOnExit: true,
});
const module = await WebAssembly.compile(await readFile(program));
// wasiImport rather than getImportObject(), which Node 18 lacks.
const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport });
process.exitCode = wasi.start(instance);
