// SPDX-License-Identifier: MIT
// The WebAssembly module onyx-lib.wasm (the onyx C library) and the
// calls into it: where the module comes from (onnxruntime's env.wasm
// flags), the struct layouts of include/onyx.h on wasm32, and tensors
// copied in and out of the module's memory.
import { env, Tensor } from 'onnxruntime-common';

import { wasiImports } from './wasi.js';

/** The module's file name, as a wasmPaths prefix is completed with. */
export const WASM_FILE = 'onyx-lib.wasm';

/** An error from onyx, or from this package's checks of what it was given. */
export class OnyxError extends Error {
  /**
   * @param {string} message what was wrong, naming the input, node or option
   * @param {string} status the status name of docs/errors.md ('ONYX_INPUT_TYPE', ...)
   */
  constructor(message, status) {
    super(message);
    this.name = 'OnyxError';
    this.status = status;
  }
}

/**
 * The element types: onnxruntime's type name, onyx's dtype (ONNX's
 * TensorProto.DataType) and the typed array onnxruntime-common's Tensor
 * holds. bfloat16, which onnxruntime-common has no type for, travels as its
 * bit patterns in a 'uint16' tensor (its metadata type says 'bfloat16').
 */
const TYPES = [
  ['float32', 1, Float32Array],
  ['uint8', 2, Uint8Array],
  ['int8', 3, Int8Array],
  ['uint16', 4, Uint16Array],
  ['int16', 5, Int16Array],
  ['int32', 6, Int32Array],
  ['int64', 7, BigInt64Array],
  ['bool', 9, Uint8Array],
  ['float16', 10, Uint16Array],
  ['float64', 11, Float64Array],
  ['uint32', 12, Uint32Array],
  ['uint64', 13, BigUint64Array],
  ['bfloat16', 16, Uint16Array],
];
const DTYPE_OF = new Map(TYPES.map(([name, dtype]) => [name, dtype]));
const TYPE_OF = new Map(TYPES.map(([name, dtype, array]) => [dtype, { name, array }]));
export const DTYPE_BFLOAT16 = 16;

/** onnxruntime's type name of an onyx dtype ('bfloat16' included). */
export function typeName(dtype) {
  return TYPE_OF.get(dtype)?.name ?? `dtype ${dtype}`;
}

/** onyx's dtype of an onnxruntime type name, or undefined. */
export function dtypeOf(type) {
  return DTYPE_OF.get(type);
}

// ---- Loading ---------------------------------------------------------------

let platform = null;
let modulePromise = null;

/**
 * Sets how this entry point fetches bytes: fetchBytes(urlOrPath, what)
 * resolves to a Uint8Array; defaultWasm is the module's URL next to lib/.
 */
export function setPlatform(p) {
  platform = p;
}

/** The bytes at url (a string, relative to the page or worker, or a URL), by fetch(). */
export async function fetchUrl(url, what) {
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new OnyxError(`cannot fetch the ${what} at ${url}: ${e.message}`, 'ONYX_IO');
  }
  if (!response.ok) {
    throw new OnyxError(`cannot fetch the ${what} at ${url}: HTTP ${response.status} ${response.statusText}`,
      'ONYX_IO');
  }
  return new Uint8Array(await response.arrayBuffer());
}

/** The bytes of a model named by a string (a URL, or in Node.js a path). */
export function fetchModel(uri) {
  return platform.fetchBytes(uri, 'model');
}

/** Where env.wasm says the module is, as onnxruntime-web reads the flags. */
function wasmLocation(flags) {
  const paths = flags.wasmPaths;
  if (typeof paths === 'string') return paths + WASM_FILE;
  if (paths?.wasm !== undefined) return paths.wasm;
  return platform.defaultWasm;
}

async function wasmBytes() {
  const flags = env.wasm ?? {};
  const binary = flags.wasmBinary;
  if (binary !== undefined) {
    if (ArrayBuffer.isView(binary)) return binary;
    if (binary instanceof ArrayBuffer || Object.prototype.toString.call(binary) === '[object SharedArrayBuffer]') {
      return new Uint8Array(binary);
    }
    throw new OnyxError('env.wasm.wasmBinary must be a Uint8Array or an ArrayBuffer', 'ONYX_INVALID_ARGUMENT');
  }
  return platform.fetchBytes(wasmLocation(flags), WASM_FILE);
}

async function instantiate() {
  const bytes = await wasmBytes();
  let module;
  try {
    module = await WebAssembly.compile(bytes);
  } catch (e) {
    throw new OnyxError(`${WASM_FILE} does not compile (${e.message}); is it the package's module?`,
      'ONYX_INVALID_ARGUMENT');
  }
  let memory = null;
  const instance = await WebAssembly.instantiate(module, wasiImports(module, () => memory));
  memory = instance.exports.memory;
  instance.exports._initialize();
  return { exports: instance.exports, memory };
}

/**
 * The module, loaded once per JavaScript realm; every session shares it. A
 * failed load is forgotten, so that a call after fixing env.wasm retries.
 */
export function onyx() {
  modulePromise ??= instantiate().catch((e) => {
    modulePromise = null;
    throw e;
  });
  return modulePromise;
}

// ---- Memory ----------------------------------------------------------------

// Layouts of onyx.h's structs on wasm32 (4-byte pointers and size_t).
export const MAX_RANK = 16;
export const ERROR_SIZE = 4 + 512; // onyx_error: status, message[512]
export const TENSOR = { dtype: 0, rank: 4, dims: 8, data: 136, size: 140, SIZE: 144 };
export const INFO = { name: 0, dtype: 4, hasShape: 8, rank: 12, dims: 16, dimNames: 144, SIZE: 208 };
// onyx_session_options: threads, isa_cap, arena, arena_size, ops.
export const OPTIONS = { isaCap: 4, SIZE: 20 };

/** Calls into one module, with the scratch memory of one call freed in one place. */
export class Heap {
  constructor(m) {
    this.m = m;
    this.e = m.exports;
    this.allocs = [];
  }

  view() {
    return new DataView(this.m.memory.buffer);
  }

  bytes(ptr, n) {
    return new Uint8Array(this.m.memory.buffer, ptr, n);
  }

  alloc(n) {
    const p = this.e.malloc(Math.max(n, 1));
    if (p === 0) throw new OnyxError(`out of memory for ${n} bytes`, 'ONYX_OUT_OF_MEMORY');
    this.bytes(p, n).fill(0);
    this.allocs.push(p);
    return p;
  }

  /** A copy of a typed array's bytes in the module. */
  copyIn(view) {
    const p = this.alloc(view.byteLength);
    this.bytes(p, view.byteLength).set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
    return p;
  }

  string(ptr) {
    if (ptr === 0) return null;
    const mem = new Uint8Array(this.m.memory.buffer);
    const end = mem.indexOf(0, ptr);
    return new TextDecoder().decode(mem.subarray(ptr, end));
  }

  /** Throws onyx's error for a failed status. */
  check(status, err) {
    if (status === 0) return;
    const name = this.string(this.e.onyx_status_name(status));
    throw new OnyxError(this.string(err + 4) || name, name);
  }

  free() {
    for (const p of this.allocs) this.e.free(p);
    this.allocs = [];
  }
}

export function readDims(v, at, rank) {
  const dims = [];
  for (let i = 0; i < rank; i++) dims.push(Number(v.getBigInt64(at + 8 * i, true)));
  return dims;
}

/**
 * The tensor onyx wrote at ptr, copied out of the module's memory as an
 * onnxruntime-common Tensor (bfloat16 as 'uint16'), and its onyx dtype.
 */
export function tensorOut(h, ptr) {
  const v = h.view();
  const dtype = v.getInt32(ptr + TENSOR.dtype, true);
  const dims = readDims(v, ptr + TENSOR.dims, v.getUint32(ptr + TENSOR.rank, true));
  const { name, array } = TYPE_OF.get(dtype);
  const n = dims.reduce((a, b) => a * b, 1);
  const out = new array(n);
  if (n > 0) {
    const data = v.getUint32(ptr + TENSOR.data, true);
    new Uint8Array(out.buffer).set(h.bytes(data, out.byteLength));
  }
  return { tensor: new Tensor(name === 'bfloat16' ? 'uint16' : name, out, dims), dtype };
}

/** Writes tensor t (its bytes copied into the module) as an onyx_tensor of dtype at ptr. */
export function tensorIn(h, ptr, t, dtype) {
  const data = h.copyIn(t.data);
  const v = h.view();
  v.setInt32(ptr + TENSOR.dtype, dtype, true);
  v.setUint32(ptr + TENSOR.rank, t.dims.length, true);
  t.dims.forEach((d, i) => v.setBigInt64(ptr + TENSOR.dims + 8 * i, BigInt(d), true));
  v.setUint32(ptr + TENSOR.data, data, true);
  v.setUint32(ptr + TENSOR.size, t.data.byteLength, true);
}

// ---- Calls that are not sessions -------------------------------------------

/**
 * Decodes a serialized ONNX TensorProto (a .pb file of the ONNX test data).
 * Resolves to { name, tensor, type }: type is the ONNX element type's name
 * ('bfloat16' where the tensor is a 'uint16' one). Not part of onnxruntime.
 */
export async function decodeTensor(bytes) {
  if (!ArrayBuffer.isView(bytes)) throw new TypeError('decodeTensor: give the bytes as a Uint8Array');
  const h = new Heap(await onyx());
  try {
    const src = h.copyIn(bytes);
    const out = h.alloc(TENSOR.SIZE);
    const name = h.alloc(4);
    const err = h.alloc(ERROR_SIZE);
    h.check(h.e.onyx_tensor_decode(src, bytes.byteLength, out, name, err), err);
    const namePtr = h.view().getUint32(name, true);
    const { tensor, dtype } = tensorOut(h, out);
    const result = { name: h.string(namePtr), tensor, type: typeName(dtype) };
    h.e.onyx_free(namePtr);
    h.e.onyx_free(h.view().getUint32(out + TENSOR.data, true));
    return result;
  } finally {
    h.free();
  }
}

/** onyx's version and the instruction set its kernels use. */
export async function info() {
  const m = await onyx();
  const h = new Heap(m);
  return {
    version: h.string(m.exports.onyx_version()),
    isa: h.string(m.exports.onyx_isa_name(m.exports.onyx_isa_detected())),
  };
}
