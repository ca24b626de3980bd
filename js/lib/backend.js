// SPDX-License-Identifier: MIT
// onyx as an onnxruntime-common backend: a session handler over the C API
// in onyx-lib.wasm, registered with registerBackend under the name 'onyx'
// (and 'wasm', onnxruntime-web's name, so that code written for it runs
// unchanged). onnxruntime-common's InferenceSession and Tensor are the
// public API; this file only answers its calls.
import { env, InferenceSession, registerBackend, Tensor } from 'onnxruntime-common';

import {
  dtypeOf, DTYPE_BFLOAT16, ERROR_SIZE, fetchModel, Heap, INFO, MAX_RANK, OnyxError, onyx, OPTIONS,
  readDims, TENSOR, tensorIn, tensorOut, typeName,
} from './module.js';
import { checkOutputLocations, checkRunOptions, sessionOptions } from './options.js';

/** The backend's names: its own, and onnxruntime-web's for its WebAssembly backend. */
export const BACKEND_NAME = 'onyx';
const ALIASES = ['wasm'];
// Below onnxruntime-node's 'cpu' (100): loading onyx beside it does not
// change which backend its sessions get by default.
const PRIORITY = 10;
const GUARD = 16; // bytes after the options that onyx_session_options_init must leave alone

// Marks onyx's session handlers, whichever copy of this package made them.
const HANDLER = Symbol.for('onyx-runtime: session handler');

const own = (map, name) => Object.prototype.hasOwnProperty.call(map, name);

/**
 * The entry of map for name, own properties only (an input named
 * 'constructor' is not Object.prototype's). onnxruntime-common stores
 * fetches into a plain object, where a name '__proto__' sets the
 * prototype instead: that prototype is the entry then.
 */
function entry(map, name) {
  if (own(map, name)) return { found: true, value: map[name] };
  const proto = Object.getPrototypeOf(map);
  if (name === '__proto__' && proto !== Object.prototype) return { found: true, value: proto };
  return { found: false };
}

/** The names and metadata of a session's inputs or outputs. */
function valueInfos(h, session, count, infoFn, overrides) {
  const infos = [];
  const info = h.alloc(INFO.SIZE);
  const err = h.alloc(ERROR_SIZE);
  for (let i = 0; i < count; i++) {
    h.check(infoFn(session, i, info, err), err);
    const v = h.view();
    const rank = v.getUint32(info + INFO.rank, true);
    const hasShape = v.getInt32(info + INFO.hasShape, true) !== 0;
    const dims = hasShape ? readDims(v, info + INFO.dims, rank) : [];
    const dimNames = dims.map((_, d) => h.string(v.getUint32(info + INFO.dimNames + 4 * d, true)));
    const dtype = v.getInt32(info + INFO.dtype, true);
    // onnxruntime's shape: a symbolic dimension by its name (or its
    // freeDimensionOverrides size), an unknown one as -1.
    const shape = dims.map((d, k) => (dimNames[k] === null ? d : overrides.get(dimNames[k]) ?? dimNames[k]));
    const overridden = dimNames.flatMap((n, k) => (overrides.has(n) ? [[k, overrides.get(n)]] : []));
    infos.push({ name: h.string(v.getUint32(info + INFO.name, true)), dtype, hasShape, shape, overridden });
  }
  return infos;
}

const metadata = ({ name, dtype, shape }) => ({ name, isTensor: true, type: typeName(dtype), shape });

/** The kernel cap named isa (as onyx_isa_name spells them). */
function isaLevel(h, name) {
  for (let isa = 0; isa < 32; isa++) {
    if (h.string(h.e.onyx_isa_name(isa)) === name) return isa;
  }
  throw new OnyxError(`unknown isa '${name}' (this module has 'scalar' and 'wasm-simd128')`,
    'ONYX_INVALID_ARGUMENT');
}

/** onyx_session_options at a new block of h, with isa as the cap if given. */
function nativeOptions(h, isa) {
  // The guard catches a module whose options struct outgrew OPTIONS.SIZE
  // (a package and a module of different versions) before it matters.
  const opts = h.alloc(OPTIONS.SIZE + GUARD);
  h.bytes(opts + OPTIONS.SIZE, GUARD).fill(0xaa);
  h.e.onyx_session_options_init(opts);
  if (h.bytes(opts + OPTIONS.SIZE, GUARD).some((b) => b !== 0xaa)) {
    throw new OnyxError('onyx-lib.wasm does not match this package (options layout)', 'ONYX_INVALID_ARGUMENT');
  }
  if (isa !== undefined) h.view().setInt32(opts + OPTIONS.isaCap, isaLevel(h, isa), true);
  return opts;
}

/** A session: one onyx_session with its model, answering onnxruntime-common's calls. */
export class OnyxSessionHandler {
  constructor(m) {
    this[HANDLER] = true;
    this.m = m;
    this.bytes = 0;
    this.model = 0;
    this.session = 0;
    this.inputs = [];
    this.outputs = [];
  }

  /** Loads model bytes (a Uint8Array) with options as sessionOptions() read them. */
  static create(m, bytes, opts) {
    const h = new Heap(m);
    const s = new OnyxSessionHandler(m);
    try {
      // The model's bytes must outlive the model (onyx_model_load_memory).
      s.bytes = m.exports.malloc(Math.max(bytes.byteLength, 1));
      if (s.bytes === 0) throw new OnyxError('out of memory for the model', 'ONYX_OUT_OF_MEMORY');
      h.bytes(s.bytes, bytes.byteLength).set(bytes);
      const out = h.alloc(4);
      const err = h.alloc(ERROR_SIZE);
      h.check(m.exports.onyx_model_load_memory(s.bytes, bytes.byteLength, out, err), err);
      s.model = h.view().getUint32(out, true);
      h.check(m.exports.onyx_session_create(s.model, nativeOptions(h, opts.isa), out, err), err);
      s.session = h.view().getUint32(out, true);
      const e = m.exports;
      s.inputs = valueInfos(h, s.session, e.onyx_session_input_count(s.session), e.onyx_session_input_info,
        opts.overrides);
      s.outputs = valueInfos(h, s.session, e.onyx_session_output_count(s.session),
        e.onyx_session_output_info, opts.overrides);
      checkOutputLocations(opts.outputLocation, s.outputNames);
      s.inputMetadata = s.inputs.map(metadata);
      s.outputMetadata = s.outputs.map(metadata);
      return s;
    } catch (error) {
      s.dispose();
      throw error;
    } finally {
      h.free();
    }
  }

  get inputNames() {
    return this.inputs.map((i) => i.name);
  }

  get outputNames() {
    return this.outputs.map((o) => o.name);
  }

  /** Checks one feed against the session's input and writes it at ptr. */
  feed(h, ptr, info, t) {
    const { name } = info;
    if (t === null || typeof t !== 'object' || typeof t.type !== 'string' || !Array.isArray(t.dims)) {
      throw new OnyxError(`input '${name}' is not a Tensor`, 'ONYX_INVALID_ARGUMENT');
    }
    if (t.location !== undefined && t.location !== 'cpu' && t.location !== 'cpu-pinned') {
      throw new OnyxError(`input '${name}' is in '${t.location}' memory; onyx takes tensors in CPU memory ` +
        "(await tensor.getData() gives them)", 'ONYX_INVALID_ARGUMENT');
    }
    // bfloat16 comes as its bit patterns in a 'uint16' tensor.
    let dtype = dtypeOf(t.type);
    if (t.type === 'uint16' && info.dtype === DTYPE_BFLOAT16) dtype = DTYPE_BFLOAT16;
    if (dtype === undefined || !ArrayBuffer.isView(t.data)) {
      throw new OnyxError(`input '${name}' is a ${t.type} tensor; the model wants ${typeName(info.dtype)}`,
        'ONYX_INPUT_TYPE');
    }
    if (t.dims.length > MAX_RANK) {
      throw new OnyxError(`input '${name}' has rank ${t.dims.length}; onyx takes at most ${MAX_RANK}`,
        'ONYX_LIMIT');
    }
    for (const [d, want] of info.overridden) {
      if (t.dims.length === info.shape.length && t.dims[d] !== want) {
        throw new OnyxError(`input '${name}' dimension ${d} is ${t.dims[d]}; freeDimensionOverrides sets ` +
          `it to ${want}`, 'ONYX_INPUT_SHAPE');
      }
    }
    tensorIn(h, ptr, t, dtype);
  }

  /**
   * The feeds in input order; throws OnyxError for a name that is no input
   * and for a missing input (own properties only: Object.prototype's
   * 'constructor' is not an input's Tensor).
   */
  feedsInOrder(feeds) {
    if (this.session === 0) throw new OnyxError('the session was released', 'ONYX_INVALID_ARGUMENT');
    for (const name of Object.keys(feeds)) {
      if (!this.inputNames.includes(name)) {
        throw new OnyxError(`'${name}' is not an input of the model (inputs: ${this.inputNames.join(', ')})`,
          'ONYX_INVALID_ARGUMENT');
      }
    }
    return this.inputs.map(({ name }) => {
      const given = entry(feeds, name);
      if (!given.found || given.value === undefined || given.value === null) {
        throw new OnyxError(`input '${name}' is missing`, 'ONYX_INPUT_MISSING');
      }
      return given.value;
    });
  }

  /** onnxruntime-common's run: feeds and fetches by name, as the InferenceSession prepared them. */
  async run(feeds, fetches, options) {
    const tensors = this.feedsInOrder(feeds);
    checkRunOptions(options);
    const h = new Heap(this.m);
    try {
      const ins = h.alloc(TENSOR.SIZE * this.inputs.length);
      this.inputs.forEach((info, i) => this.feed(h, ins + TENSOR.SIZE * i, info, tensors[i]));
      const outs = h.alloc(TENSOR.SIZE * this.outputs.length);
      const err = h.alloc(ERROR_SIZE);
      h.check(this.m.exports.onyx_session_run(this.session, ins, this.inputs.length, outs,
        this.outputs.length, err), err);
      return this.collect(h, outs, fetches);
    } finally {
      h.free();
    }
  }

  /** The fetched outputs of a run at outs (null-prototype, so any name is a key); frees them all. */
  collect(h, outs, fetches) {
    const result = Object.create(null);
    let failure = null;
    this.outputs.forEach(({ name }, i) => {
      const ptr = outs + TENSOR.SIZE * i;
      const wanted = entry(fetches, name);
      if (wanted.found && failure === null) {
        try {
          result[name] = intoFetch(name, tensorOut(h, ptr).tensor, wanted.value);
        } catch (e) {
          failure = e;
        }
      }
      this.m.exports.onyx_free(h.view().getUint32(ptr + TENSOR.data, true));
    });
    if (failure !== null) throw failure;
    return result;
  }

  startProfiling() {}

  endProfiling() {}

  /** Frees the session and its model; the session cannot run afterwards. */
  async dispose() {
    const e = this.m.exports;
    if (this.session !== 0) e.onyx_session_free(this.session);
    if (this.model !== 0) e.onyx_model_free(this.model);
    if (this.bytes !== 0) e.free(this.bytes);
    this.session = this.model = this.bytes = 0;
  }
}

/** The output, or, where fetches gave a Tensor for it, that Tensor filled with it. */
function intoFetch(name, out, given) {
  if (given === null || given === undefined) return out;
  const same = given instanceof Object && given.type === out.type && given.dims?.join() === out.dims.join();
  if (!same || !ArrayBuffer.isView(given.data)) {
    throw new OnyxError(`output '${name}' is ${out.type} [${out.dims}]; the tensor given for it in fetches ` +
      `is ${given.type} [${given.dims}]`, 'ONYX_INVALID_ARGUMENT');
  }
  const bytes = new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.byteLength);
  new Uint8Array(given.data.buffer, given.data.byteOffset, given.data.byteLength).set(bytes);
  return given;
}

/** The backend registerBackend takes. */
export const backend = {
  /** Loads onyx-lib.wasm (env.wasm.wasmBinary, env.wasm.wasmPaths, or next to the package's lib/). */
  async init() {
    const m = await onyx();
    if (env.versions.onyx === undefined) {
      const h = new Heap(m);
      Object.defineProperty(env.versions, 'onyx', { value: h.string(m.exports.onyx_version()), enumerable: true });
    }
  },

  async createInferenceSessionHandler(uriOrBuffer, options) {
    const opts = sessionOptions(options, env.wasm);
    const bytes = typeof uriOrBuffer === 'string' ? await fetchModel(uriOrBuffer) : uriOrBuffer;
    return OnyxSessionHandler.create(await onyx(), bytes, opts);
  },
};

// ---- onnxruntime-common's InferenceSession, extended -----------------------

const EXTENDED = Symbol.for('onyx-runtime: InferenceSession extended');

/**
 * A run's result with every output an own property, in the model's order.
 * onnxruntime-common copies the outputs into a plain object, where an
 * output named '__proto__' becomes the object's prototype instead.
 */
function ownOutputs(result, outputNames) {
  const proto = Object.getPrototypeOf(result);
  if (proto === Object.prototype || proto === null) return result;
  const fixed = {};
  for (const name of outputNames) {
    const { found, value } = entry(result, name);
    if (found && value instanceof Tensor) {
      Object.defineProperty(fixed, name, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  return fixed;
}

/**
 * What onnxruntime-common's InferenceSession lacks, added to it in place
 * (once, whichever copy of onyx-runtime loads first), so that the class
 * stays the one onnxruntime's users import: create() takes a URL object as
 * it takes a URL string (toSource gives what the string is: in Node.js a
 * file: URL becomes its path, which onnxruntime-node reads too); run() on
 * an onyx session checks the feeds with onyx's errors and returns an output
 * named '__proto__' as an own property. Sessions of other backends run as
 * before.
 */
function extendInferenceSession(toSource) {
  if (InferenceSession[EXTENDED]) return;
  const create = InferenceSession.create;
  const run = InferenceSession.prototype.run;
  InferenceSession.create = function createFromUrlToo(source, ...rest) {
    return create.call(this, source instanceof URL ? toSource(source) : source, ...rest);
  };
  InferenceSession.prototype.run = async function runWithOwnOutputs(feeds, ...rest) {
    if (this.handler?.[HANDLER] !== true) return run.call(this, feeds, ...rest);
    // onyx's own errors for the feeds, before onnxruntime-common's check
    // (which takes an inherited 'constructor' for an input's Tensor).
    const plain = typeof feeds === 'object' && feeds !== null && !Array.isArray(feeds) && !(feeds instanceof Tensor);
    if (plain) this.handler.feedsInOrder(feeds);
    return ownOutputs(await run.call(this, feeds, ...rest), this.outputNames);
  };
  Object.defineProperty(InferenceSession, EXTENDED, { value: true });
}

/** Registers onyx with onnxruntime-common; toSource(url) gives a URL object's string for create(). */
export function register(toSource) {
  registerBackend(BACKEND_NAME, backend, PRIORITY);
  for (const alias of ALIASES) registerBackend(alias, backend, -1);
  extendInferenceSession(toSource);
}
