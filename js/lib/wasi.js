// SPDX-License-Identifier: MIT
// The few WASI calls onyx-lib.wasm imports, supplied here so that the same
// package runs in Node.js and in browsers without node:wasi. The library
// touches no files (models come in as bytes): the file calls it still
// links report "bad descriptor" or "not capable", there are no preopened
// folders and no environment, and the clock is the host's.

const ERRNO_SUCCESS = 0;
const ERRNO_BADF = 8;
const ERRNO_NOSYS = 52;
const ERRNO_NOTCAPABLE = 76;

/** Raised by proc_exit, which onyx never calls on its own. */
export class WasiExit extends Error {
  constructor(code) {
    super(`onyx-lib.wasm exited with status ${code}`);
    this.code = code;
  }
}

/**
 * The import object for the module's WASI imports. getMemory returns the
 * module's memory once it is instantiated. Any WASI call not listed below
 * returns ENOSYS, so a module that imports one more still loads.
 */
export function wasiImports(module, getMemory) {
  const view = () => new DataView(getMemory().buffer);
  const calls = {
    environ_sizes_get(countPtr, sizePtr) {
      view().setUint32(countPtr, 0, true);
      view().setUint32(sizePtr, 0, true);
      return ERRNO_SUCCESS;
    },
    environ_get: () => ERRNO_SUCCESS,
    clock_time_get(id, precision, timePtr) {
      // Nanoseconds; realtime (0) from the epoch, the others monotonic.
      const ms = id === 0 ? Date.now() : performance.now();
      view().setBigUint64(timePtr, BigInt(Math.round(ms * 1e6)), true);
      return ERRNO_SUCCESS;
    },
    fd_write(fd, iovs, iovsLen, writtenPtr) {
      if (fd !== 1 && fd !== 2) return ERRNO_BADF;
      const v = view();
      let text = '';
      let n = 0;
      for (let i = 0; i < iovsLen; i++) {
        const ptr = v.getUint32(iovs + 8 * i, true);
        const len = v.getUint32(iovs + 8 * i + 4, true);
        text += new TextDecoder().decode(new Uint8Array(getMemory().buffer, ptr, len));
        n += len;
      }
      (fd === 1 ? console.log : console.error)(text.replace(/\n$/, ''));
      v.setUint32(writtenPtr, n, true);
      return ERRNO_SUCCESS;
    },
    path_open: () => ERRNO_NOTCAPABLE,
    path_filestat_get: () => ERRNO_NOTCAPABLE,
    proc_exit(code) {
      throw new WasiExit(code);
    },
  };
  const imports = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.kind !== 'function') continue;
    const table = (imports[imp.module] ??= {});
    if (imp.module !== 'wasi_snapshot_preview1') {
      table[imp.name] = () => {
        throw new Error(`onyx-lib.wasm imports ${imp.module}.${imp.name}, which no one supplies`);
      };
    } else if (calls[imp.name]) {
      table[imp.name] = calls[imp.name];
    } else {
      // fd_close, fd_seek, fd_pread, fd_prestat_get (no preopens), ...
      table[imp.name] = imp.name.startsWith('fd_') ? () => ERRNO_BADF : () => ERRNO_NOSYS;
    }
  }
  return imports;
}
