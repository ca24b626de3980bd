// SPDX-License-Identifier: MIT
// onyx for JavaScript: the onyx C library as a WebAssembly module
// (onyx-lib.wasm), behind an API shaped as onnxruntime-node's and
// onnxruntime-web's:
//
//   import { InferenceSession, Tensor } from 'onyx-runtime';
//   const session = await InferenceSession.create('model.onnx');
//   const x = new Tensor('float32', Float32Array.from([-1.5, 0.5]), [2]);
//   const { y } = await session.run({ x });
//   session.release();
//
// Errors are OnyxError (an Error) carrying onyx's message, with .status the
// status name ('ONYX_INPUT_TYPE', ...). Works in Node.js 18+ and browsers.
import { wasiImports } from './wasi.js';

/**
 * The element types, as onnxruntime names them: onyx's dtype value (ONNX's
 * TensorProto.DataType) and the typed array that holds the elements.
 * float16 and bfloat16 are their 16-bit patterns in a Uint16Array. 'bool'
 * is listed because onnxruntime has it, but onyx has no bool type: a run
 * with one fails with ONYX_INPUT_TYPE.
 */
const TYPES = {
  float32: { dtype: 1, array: Float32Array },
  uint8: { dtype: 2, array: Uint8Array },
  int8: { dtype: 3, array: Int8Array },
  uint16: { dtype: 4, array: Uint16Array },
  int16: { dtype: 5, array: Int16Array },
  int32: { dtype: 6, array: Int32Array },
  int64: { dtype: 7, array: BigInt64Array },
  bool: { dtype: 9, array: Uint8Array },
  float16: { dtype: 10, array: Uint16Array },
  float64: { dtype: 11, array: Float64Array },
  uint32: { dtype: 12, array: Uint32Array },
  uint64: { dtype: 13, array: BigUint64Array },
  bfloat16: { dtype: 16, array: Uint16Array },
};
const TYPE_OF_DTYPE = new Map(Object.entries(TYPES).map(([name, t]) => [t.dtype, name]));
// The type a typed array means when new Tensor(data, dims) names none.
const TYPE_OF_ARRAY = new Map([
  [Float32Array, 'float32'], [Float64Array, 'float64'], [Int8Array, 'int8'],
  [Int16Array, 'int16'], [Int32Array, 'int32'], [BigInt64Array, 'int64'],
  [Uint8Array, 'uint8'], [Uint16Array, 'uint16'], [Uint32Array, 'uint32'],
  [BigUint64Array, 'uint64'],
]);

/** An error from onyx (or from this package's checks of the arguments). */
export class OnyxError extends Error {
  constructor(message, status) {
    super(message);
    this.name = 'OnyxError';
    this.status = status;
  }
}

/** A tensor: type, data (a typed array), dims and size (the element count). */
export class Tensor {
  constructor(typeOrData, dataOrDims, maybeDims) {
    let type = typeOrData;
    let data = dataOrDims;
    let dims = maybeDims;
    if (typeof typeOrData !== 'string') {
      type = TYPE_OF_ARRAY.get(typeOrData?.constructor);
      if (type === undefined) throw new TypeError('Tensor: name the type for this data');
      [data, dims] = [typeOrData, dataOrDims];
    }
    const t = TYPES[type];
    if (t === undefined) throw new TypeError(`Tensor: unknown type '${type}'`);
    if (Array.isArray(data)) data = t.array.from(data);
    if (!(data instanceof t.array)) {
      throw new TypeError(`Tensor: ${type} data must be a ${t.array.name}`);
    }
    dims = dims === undefined ? [data.length] : Array.from(dims, Number);
    if (!dims.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      throw new TypeError(`Tensor: dims [${dims}] must be integers >= 0`);
    }
    const size = dims.reduce((a, b) => a * b, 1);
    if (size !== data.length) {
      throw new RangeError(`Tensor: dims [${dims}] hold ${size} elements, data has ${data.length}`);
    }
    this.type = type;
    this.data = data;
    this.dims = Object.freeze(dims);
    this.size = size;
  }
}

// ---- The module ----------------------------------------------------------

let modulePromise = null;

async function wasmBytes() {
  const url = new URL('../onyx-lib.wasm', import.meta.url);
  if (url.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    return readFile(url);
  }
  const response = await fetch(url);
  if (!response.ok) throw new OnyxError(`cannot fetch ${url}: ${response.status}`, 'ONYX_IO');
  return new Uint8Array(await response.arrayBuffer());
}

async function instantiate() {
  const module = await WebAssembly.compile(await wasmBytes());
  let memory = null;
  const instance = await WebAssembly.instantiate(module, wasiImports(module, () => memory));
  memory = instance.exports.memory;
  instance.exports._initialize();
  return { exports: instance.exports, memory };
}

/** Loads onyx-lib.wasm once; every session shares it. */
function onyx() {
  modulePromise ??= instantiate();
  return modulePromise;
}

// Layouts of onyx.h's structs on wasm32 (4-byte pointers and size_t).
const MAX_RANK = 16;
const ERROR_SIZE = 4 + 512; // onyx_error: status, message[512]
const TENSOR = { dtype: 0, rank: 4, dims: 8, data: 136, size: 140, SIZE: 144 };
const INFO = { name: 0, dtype: 4, hasShape: 8, rank: 12, dims: 16, dimNames: 144, SIZE: 208 };
// onyx_session_options: threads, isa_cap, arena, arena_size, ops.
const OPTIONS = { isaCap: 4, SIZE: 20 };
const GUARD = 16; // bytes after the options that onyx_session_options_init must leave alone

/** Calls into one module, with scratch memory freed in one place. */
class Heap {
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
  copyIn(view) {
    const src = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    const p = this.alloc(src.length);
    this.bytes(p, src.length).set(src);
    return p;
  }
  string(ptr) {
    if (ptr === 0) return null;
    const mem = new Uint8Array(this.m.memory.buffer);
    let end = ptr;
    while (mem[end] !== 0) end++;
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

function readDims(v, at, rank) {
  const dims = [];
  for (let i = 0; i < rank; i++) dims.push(Number(v.getBigInt64(at + 8 * i, true)));
  return dims;
}

/** The tensor onyx wrote at ptr, copied out of the module's memory. */
function tensorOut(h, ptr) {
  const v = h.view();
  const dtype = v.getInt32(ptr + TENSOR.dtype, true);
  const dims = readDims(v, ptr + TENSOR.dims, v.getUint32(ptr + TENSOR.rank, true));
  const type = TYPE_OF_DTYPE.get(dtype);
  const data = v.getUint32(ptr + TENSOR.data, true);
  const n = dims.reduce((a, b) => a * b, 1);
  const Array_ = TYPES[type].array;
  const out = new Array_(n);
  if (n > 0) {
    new Uint8Array(out.buffer).set(h.bytes(data, n * Array_.BYTES_PER_ELEMENT));
  }
  return new Tensor(type, out, dims);
}

/** Writes t as an onyx_tensor at ptr, its data copied into the module. */
function tensorIn(h, ptr, t, name) {
  if (!(t instanceof Tensor)) throw new TypeError(`run: input '${name}' is not a Tensor`);
  if (t.dims.length > MAX_RANK) {
    throw new OnyxError(`input '${name}' has rank ${t.dims.length}; onyx takes at most ${MAX_RANK}`,
      'ONYX_LIMIT');
  }
  const data = h.copyIn(t.data);
  const v = h.view();
  v.setInt32(ptr + TENSOR.dtype, TYPES[t.type].dtype, true);
  v.setUint32(ptr + TENSOR.rank, t.dims.length, true);
  t.dims.forEach((d, i) => v.setBigInt64(ptr + TENSOR.dims + 8 * i, BigInt(d), true));
  v.setUint32(ptr + TENSOR.data, data, true);
  v.setUint32(ptr + TENSOR.size, t.data.byteLength, true);
}

// ---- Sessions --------------------------------------------------------------

/** The names (and types and shapes) of a session's inputs or outputs. */
function valueInfos(h, session, count, infoFn) {
  const infos = [];
  const info = h.alloc(INFO.SIZE);
  const err = h.alloc(ERROR_SIZE);
  for (let i = 0; i < count; i++) {
    h.check(infoFn(session, i, info, err), err);
    const v = h.view();
    const rank = v.getUint32(info + INFO.rank, true);
    infos.push({
      name: h.string(v.getUint32(info + INFO.name, true)),
      type: TYPE_OF_DTYPE.get(v.getInt32(info + INFO.dtype, true)),
      dims: v.getInt32(info + INFO.hasShape, true) ? readDims(v, info + INFO.dims, rank) : null,
    });
  }
  return infos;
}

async function modelBytes(pathOrBytes) {
  if (typeof pathOrBytes === 'string') {
    const { readFile } = await import('node:fs/promises');
    return readFile(pathOrBytes);
  }
  if (pathOrBytes instanceof ArrayBuffer) return new Uint8Array(pathOrBytes);
  if (ArrayBuffer.isView(pathOrBytes)) return pathOrBytes;
  throw new TypeError('InferenceSession.create: give a path, a Uint8Array or an ArrayBuffer');
}

/** The onyx_isa value named name (as onyx_isa_name gives them). */
function isaLevel(h, name) {
  for (let isa = 0; isa < 32; isa++) {
    if (h.string(h.e.onyx_isa_name(isa)) === name) return isa;
  }
  throw new OnyxError(`unknown isa '${name}'`, 'ONYX_INVALID_ARGUMENT');
}

export class InferenceSession {
  /**
   * Loads a model: a path (Node.js only) or its bytes. options.isa caps the
   * kernels' instruction set ('scalar' or 'wasm-simd128', the default).
   */
  static async create(pathOrBytes, options = {}) {
    const bytes = await modelBytes(pathOrBytes);
    const m = await onyx();
    const h = new Heap(m);
    const s = new InferenceSession(m);
    try {
      // The model's bytes must outlive the model (onyx_model_load_memory).
      s.bytes = m.exports.malloc(Math.max(bytes.byteLength, 1));
      if (s.bytes === 0) throw new OnyxError('out of memory for the model', 'ONYX_OUT_OF_MEMORY');
      new Uint8Array(m.memory.buffer, s.bytes, bytes.byteLength).set(
        new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      const out = h.alloc(4);
      const err = h.alloc(ERROR_SIZE);
      h.check(m.exports.onyx_model_load_memory(s.bytes, bytes.byteLength, out, err), err);
      s.model = h.view().getUint32(out, true);
      // The guard catches a module whose options struct outgrew OPTIONS.SIZE
      // (a package and a module of different versions) before it matters.
      const opts = h.alloc(OPTIONS.SIZE + GUARD);
      h.bytes(opts + OPTIONS.SIZE, GUARD).fill(0xaa);
      m.exports.onyx_session_options_init(opts);
      if (h.bytes(opts + OPTIONS.SIZE, GUARD).some((b) => b !== 0xaa)) {
        throw new OnyxError('onyx-lib.wasm does not match this package (options layout)',
          'ONYX_INVALID_ARGUMENT');
      }
      if (options.isa !== undefined) {
        const isa = isaLevel(h, options.isa);
        h.view().setInt32(opts + OPTIONS.isaCap, isa, true);
      }
      h.check(m.exports.onyx_session_create(s.model, opts, out, err), err);
      s.session = h.view().getUint32(out, true);
      const e = m.exports;
      s.inputs = valueInfos(h, s.session, e.onyx_session_input_count(s.session), e.onyx_session_input_info);
      s.outputs = valueInfos(h, s.session, e.onyx_session_output_count(s.session), e.onyx_session_output_info);
      return s;
    } catch (error) {
      s.release();
      throw error;
    } finally {
      h.free();
    }
  }

  constructor(m) {
    this.m = m;
    this.bytes = 0;
    this.model = 0;
    this.session = 0;
    this.inputs = [];
    this.outputs = [];
  }

  get inputNames() {
    return this.inputs.map((i) => i.name);
  }

  get outputNames() {
    return this.outputs.map((o) => o.name);
  }

  /** Inputs by name; resolves to the outputs by name (all, or fetches). */
  async run(feeds, fetches) {
    if (this.session === 0) throw new OnyxError('the session was released', 'ONYX_INVALID_ARGUMENT');
    for (const name of Object.keys(feeds)) {
      if (!this.inputNames.includes(name)) {
        throw new OnyxError(`'${name}' is not an input of the model (inputs: ${this.inputNames.join(', ')})`,
          'ONYX_INVALID_ARGUMENT');
      }
    }
    const h = new Heap(this.m);
    try {
      const ins = h.alloc(TENSOR.SIZE * this.inputs.length);
      this.inputs.forEach(({ name }, i) => {
        if (feeds[name] === undefined) {
          throw new OnyxError(`input '${name}' is missing`, 'ONYX_INPUT_MISSING');
        }
        tensorIn(h, ins + TENSOR.SIZE * i, feeds[name], name);
      });
      const outs = h.alloc(TENSOR.SIZE * this.outputs.length);
      const err = h.alloc(ERROR_SIZE);
      h.check(this.m.exports.onyx_session_run(this.session, ins, this.inputs.length, outs,
        this.outputs.length, err), err);
      const result = {};
      const wanted = fetches === undefined ? this.outputNames : Array.from(fetches);
      this.outputs.forEach(({ name }, i) => {
        const ptr = outs + TENSOR.SIZE * i;
        if (wanted.includes(name)) result[name] = tensorOut(h, ptr);
        this.m.exports.onyx_free(h.view().getUint32(ptr + TENSOR.data, true));
      });
      return result;
    } finally {
      h.free();
    }
  }

  /** Frees the session and its model; the session cannot run afterwards. */
  async release() {
    const e = this.m.exports;
    if (this.session !== 0) e.onyx_session_free(this.session);
    if (this.model !== 0) e.onyx_model_free(this.model);
    if (this.bytes !== 0) e.free(this.bytes);
    this.session = this.model = this.bytes = 0;
  }
}

/**
 * Decodes a serialized ONNX TensorProto (a .pb file of the ONNX test data)
 * into a Tensor and its name. Not part of onnxruntime's API.
 */
export async function decodeTensor(bytes) {
  const h = new Heap(await onyx());
  try {
    const src = h.copyIn(bytes);
    const out = h.alloc(TENSOR.SIZE);
    const name = h.alloc(4);
    const err = h.alloc(ERROR_SIZE);
    h.check(h.e.onyx_tensor_decode(src, bytes.byteLength, out, name, err), err);
    const namePtr = h.view().getUint32(name, true);
    const result = { name: h.string(namePtr), tensor: tensorOut(h, out) };
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
