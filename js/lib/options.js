// SPDX-License-Identifier: MIT
// onnxruntime's session and run options, read for onyx. An option onyx
// cannot honour is accepted where onnxruntime accepts it and has a
// fallback (threads: onyx-lib.wasm runs on the calling thread; the
// optimization levels: onyx always folds and fuses; memory arenas and
// patterns: onyx plans its own memory); a value onnxruntime-web rejects is
// rejected with its message; a request onyx cannot carry out at all
// (external data, GPU outputs, graph capture, writing an optimized model)
// fails with a message that says so. docs/js.md lists every option.
import { OnyxError } from './module.js';

const GRAPH_OPTIMIZATION_LEVELS = ['disabled', 'basic', 'extended', 'layout', 'all'];
const EXECUTION_MODES = ['sequential', 'parallel'];
// Output locations in CPU memory: onyx's outputs are always there.
const CPU_LOCATIONS = ['cpu', 'cpu-pinned'];

const invalid = (message) => new OnyxError(message, 'ONYX_INVALID_ARGUMENT');

function checkOneOf(value, allowed, what) {
  if (value !== undefined && !allowed.includes(value)) throw invalid(`unsupported ${what}: ${value}`);
}

function checkLevel(value, what) {
  if (value !== undefined && (!Number.isInteger(value) || value < 0 || value > 4)) {
    throw invalid(`${what} level is not valid: ${value}`);
  }
}

function checkCount(value, what) {
  if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
    throw invalid(`${what} must be a non-negative integer: ${value}`);
  }
}

/** freeDimensionOverrides, checked as onnxruntime-web checks it: { name: size }. */
function overrides(options) {
  const map = new Map();
  for (const [name, value] of Object.entries(options.freeDimensionOverrides ?? {})) {
    if (!Number.isInteger(value) || value < 0) {
      throw invalid(`free dimension override value must be a non-negative integer: ${value}`);
    }
    map.set(name, value);
  }
  return map;
}

/** The onyx execution provider's own options ({ name: 'onyx', isa }), if given. */
function providerOptions(options) {
  const eps = options.executionProviders ?? [];
  return eps.find((ep) => typeof ep === 'object' && ep !== null && typeof ep.isa === 'string') ?? {};
}

function refuseUnservable(options) {
  if (options.enableGraphCapture !== undefined && typeof options.enableGraphCapture !== 'boolean') {
    throw invalid(`enableGraphCapture must be a boolean value: ${options.enableGraphCapture}`);
  }
  if (options.enableGraphCapture) {
    throw invalid('enableGraphCapture: onyx runs on the CPU, where there is no GPU graph to capture');
  }
  if (options.externalData !== undefined && options.externalData.length > 0) {
    throw new OnyxError('externalData: onyx-runtime loads a model from its own bytes; a model whose ' +
      'tensors live in other files cannot be loaded here', 'ONYX_EXTERNAL_DATA');
  }
  if (options.optimizedModelFilePath !== undefined) {
    throw invalid(`optimizedModelFilePath '${options.optimizedModelFilePath}': onyx does not write ` +
      'optimized models (it optimizes each session as it is created)');
  }
}

/**
 * The session options onyx uses, from onnxruntime's SessionOptions: isa (a
 * kernel cap, from the 'onyx' execution provider's options or from
 * env.wasm.simd === false), the free dimension overrides and the output
 * locations (checked against the model's outputs once they are known).
 * Throws OnyxError for what onnxruntime-web would reject and for what onyx
 * cannot do.
 */
export function sessionOptions(options = {}, wasmFlags = {}) {
  checkOneOf(options.graphOptimizationLevel, GRAPH_OPTIMIZATION_LEVELS, 'graph optimization level');
  checkOneOf(options.executionMode, EXECUTION_MODES, 'execution mode');
  checkLevel(options.logSeverityLevel, 'log severity');
  checkLevel(options.logVerbosityLevel, 'log verbosity');
  checkCount(options.intraOpNumThreads, 'intraOpNumThreads');
  checkCount(options.interOpNumThreads, 'interOpNumThreads');
  refuseUnservable(options);
  const isa = providerOptions(options).isa ?? (wasmFlags.simd === false ? 'scalar' : undefined);
  return { isa, overrides: overrides(options), outputLocation: options.preferredOutputLocation };
}

/** Checks preferredOutputLocation against the model's outputs: CPU memory only. */
export function checkOutputLocations(location, outputNames) {
  if (location === undefined) return;
  const entries = typeof location === 'string' ? [['', location]] : Object.entries(location);
  for (const [name, where] of entries) {
    if (name !== '' && !outputNames.includes(name)) {
      throw invalid(`preferredOutputLocation names '${name}', which is not an output of the model ` +
        `(outputs: ${outputNames.join(', ')})`);
    }
    if (!CPU_LOCATIONS.includes(where)) {
      throw invalid(`preferredOutputLocation '${where}'${name ? ` for '${name}'` : ''}: onyx's outputs ` +
        `are in CPU memory ('${CPU_LOCATIONS.join("' or '")}')`);
    }
  }
}

/** Checks onnxruntime's RunOptions as onnxruntime-web does; onyx has no other use for them. */
export function checkRunOptions(options = {}) {
  checkLevel(options.logSeverityLevel, 'log severity');
  checkLevel(options.logVerbosityLevel, 'log verbosity');
}
