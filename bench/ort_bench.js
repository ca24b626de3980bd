// SPDX-License-Identifier: MIT
'use strict';
// The ONNX Runtime side of the onyx benchmark (onnxruntime-node).
//
// onyx_bench starts this script with --serve and sends one request a line
// on stdin; each gets one reply line on stdout, so that onyx, memcpy and
// ONNX Runtime are measured back to back for the same case:
//
//   run MODEL DTYPE N THREADS TARGET_S MIN_SAMPLES
//   -> ok RUN_NS SAMPLES KERNEL_US KERNEL_EVENTS MODEL_RUN_US HASH
//   -> na REASON...            (ONNX Runtime refused the model or the type)
//
// RUN_NS is the median time of one `await session.run(feeds)` (inputs made
// in advance; the binding allocates and copies the outputs). KERNEL_US is
// the median of ONNX Runtime's own profiler 'dur' (microseconds) of each
// node's "*_kernel_time" events, summed over the nodes; MODEL_RUN_US is the
// median 'dur' of the "model_run" events. Both come from a second session
// with enableProfiling, so profiling does not slow the timed runs.
//
// Inputs are generated exactly as onyx_bench generates them (same generator,
// same seed), so HASH, a hash of the output bytes, must equal onyx's.
//
// Usage: node ort_bench.js --serve      (as above)
//        node ort_bench.js --version    (prints ONNX Runtime's version)

const fs = require('fs');
const os = require('os');
const path = require('path');
const readline = require('readline');

// onyx dtype name -> [onnxruntime-node type, element size, typed array]
const TYPES = {
  float16: ['float16', 2, Uint16Array],
  float: ['float32', 4, Float32Array],
  double: ['float64', 8, Float64Array],
  bfloat16: [null, 2, Uint16Array], // the JS binding has no bfloat16
  int8: ['int8', 1, Int8Array],
  int16: ['int16', 2, Int16Array],
  int32: ['int32', 4, Int32Array],
  int64: ['int64', 8, BigInt64Array],
  uint8: ['uint8', 1, Uint8Array],
  uint16: ['uint16', 2, Uint16Array],
  uint32: ['uint32', 4, Uint32Array],
  uint64: ['uint64', 8, BigUint64Array],
};
// Element type numbers as onyx (and ONNX) number them: part of the seed.
const DTYPE_ID = {float: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7,
  float16: 10, double: 11, uint32: 12, uint64: 13, bfloat16: 16};

// ---- Inputs: the same generator and values as onyx_bench.c -----------------

function seedOf(dtype, n) {
  return (DTYPE_ID[dtype] * 2654435761 + n) % 4294967296;
}

// mulberry32
function rng(seed) {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

const f32buf = new Float32Array(1);
const f32bits = new Uint32Array(f32buf.buffer);
// float32 -> float16 bits: round to nearest even; values too small for a
// normal float16 become signed zero (the benchmark's values never overflow).
function f16FromF32(v) {
  f32buf[0] = v;
  const x = f32bits[0];
  const sign = (x >>> 16) & 0x8000;
  const e = ((x >>> 23) & 0xff) - 112;
  const m = x & 0x7fffff;
  if (e <= 0) return sign;
  if (e >= 31) return sign | 0x7c00;
  let h = sign | (e << 10) | (m >>> 13);
  const rem = m & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++;
  return h;
}

// Floats are uniform in [-100, 100); integers uniform over the whole type.
function makeInput(dtype, n) {
  const [, size, Ctor] = TYPES[dtype];
  const next = rng(seedOf(dtype, n));
  const buffer = new ArrayBuffer(Math.ceil((n * size) / 4) * 4 || 4);
  const value = () => (next() / 4294967296) * 200 - 100;
  if (dtype === 'float' || dtype === 'double') {
    const a = new Ctor(buffer, 0, n);
    for (let i = 0; i < n; i++) a[i] = value();
    return a;
  }
  if (dtype === 'float16') {
    const a = new Uint16Array(buffer, 0, n);
    for (let i = 0; i < n; i++) a[i] = f16FromF32(Math.fround(value()));
    return a;
  }
  if (dtype === 'bfloat16') throw new Error('bfloat16 is not generated on the JS side');
  const words = new Uint32Array(buffer);
  for (let i = 0; i < words.length; i++) words[i] = next();
  return new Ctor(buffer, 0, n);
}

// FNV-1a over the bytes, every step-th byte for large outputs.
function hashBytes(view) {
  const b = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const len = b.length;
  const step = Math.max(1, Math.floor(len / 1048576));
  let h = 2166136261;
  for (let i = 0; i < len; i += step) h = Math.imul(h ^ b[i], 16777619) >>> 0;
  return h.toString(16).padStart(8, '0');
}

// ---- Timing -----------------------------------------------------------------

const now = () => Number(process.hrtime.bigint());

function median(v) {
  if (v.length === 0) return NaN;
  const s = Float64Array.from(v).sort();
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}

// Median time of one call of fn, as onyx_bench.c's measure(): warm up,
// estimate one call over 5 ms (the warm-up call itself when it takes over
// 20 ms), then time samples of k calls each (k > 1 only for calls under
// 20 us), never fewer than minSamples. firstNs, when given, is the time
// of a call just made, which may stand for the warm-up.
async function measure(fn, targetS, minSamples, firstNs = 0) {
  let one = firstNs;
  if (one < 2e7) {
    const t = now();
    await fn();
    one = now() - t;
  }
  if (one < 2e7) {
    // a call over 20 ms is its own estimate
    let count = 0;
    const t0 = now();
    do {
      await fn();
      count++;
    } while (now() - t0 < 5e6);
    one = Math.max((now() - t0) / count, 1);
  }
  const k = one < 20000 ? Math.min(Math.ceil(20000 / one), 100000) : 1;
  const samples = Math.max(minSamples, Math.min(2000, Math.floor((targetS * 1e9) / (one * k))));
  const v = new Float64Array(samples);
  for (let s = 0; s < samples; s++) {
    const t = now();
    for (let j = 0; j < k; j++) await fn();
    v[s] = (now() - t) / k;
  }
  return {ns: median(v), samples, perCall: one, calls: samples * k};
}

// ---- One request -------------------------------------------------------------

let profileDir = null;
let profileCount = 0;
let inputCache = {key: null, data: null};

function sessionOptions(threads) {
  return {intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all',
    executionMode: 'sequential'};
}

function readProfile(prefix) {
  const dir = path.dirname(prefix);
  const base = path.basename(prefix);
  const files = fs.readdirSync(dir).filter((f) => f.startsWith(base + '_') && f.endsWith('.json'));
  if (files.length === 0) throw new Error('no profile file written');
  const events = [];
  for (const f of files) {
    const full = path.join(dir, f);
    events.push(...JSON.parse(fs.readFileSync(full, 'utf8')));
    fs.unlinkSync(full);
  }
  return events;
}

// Median 'dur' per event name, dropping each name's first event (the warm-up run).
function medianDur(events, keep) {
  const byName = new Map();
  for (const e of events) {
    if (!keep(e)) continue;
    if (!byName.has(e.name)) byName.set(e.name, []);
    byName.get(e.name).push(e.dur);
  }
  let sum = 0;
  let count = 0;
  for (const durs of byName.values()) {
    const rest = durs.length > 1 ? durs.slice(1) : durs;
    sum += median(rest);
    count += rest.length;
  }
  return {us: byName.size ? sum : NaN, count};
}

async function runCase(ort, args) {
  const [model, dtype, nText, threadsText, targetText, minText] = args;
  const n = Number(nText);
  const threads = Number(threadsText);
  const targetS = Number(targetText);
  const minSamples = Number(minText);
  const type = TYPES[dtype];
  if (!type) return `na unknown type ${dtype}`;
  if (!type[0]) return 'na no bfloat16 in the JS binding';

  // The profiled session serves first; when one run takes over 2 ms, the
  // profiler's own cost (microseconds a run) does not matter and its runs
  // are timed too. Shorter runs are timed in a session without profiling.
  const prefix = path.join(profileDir, `p${profileCount++}`);
  const popts = {...sessionOptions(threads), enableProfiling: true, profileFilePrefix: prefix};
  let ps;
  try {
    ps = await ort.InferenceSession.create(model, popts);
  } catch (e) {
    return 'na ' + shortError(e);
  }
  const key = `${dtype}:${n}`;
  if (inputCache.key !== key) {
    inputCache = {key: null, data: null};
    if (global.gc) global.gc();
    inputCache = {key, data: makeInput(dtype, n)};
  }
  const feeds = {[ps.inputNames[0]]: new ort.Tensor(type[0], inputCache.data, [n])};
  const outName = ps.outputNames[0];
  let last = null;
  let runs;
  let hash;
  try {
    last = await ps.run(feeds); // the first run of a session is slow
    hash = hashBytes(last[outName].data);
    last = null;
    const t0 = now();
    await ps.run(feeds);
    const first = now() - t0;
    if (first > 2e6) {
      runs = await measure(async () => {
        await ps.run(feeds);
      }, targetS, minSamples, first);
    } else {
      const count = Math.max(minSamples, Math.min(300, Math.floor((targetS * 1e9) / first)));
      for (let i = 0; i < count; i++) await ps.run(feeds);
      const session = await ort.InferenceSession.create(model, sessionOptions(threads));
      try {
        runs = await measure(async () => {
          await session.run(feeds);
        }, targetS, minSamples);
      } finally {
        await session.release();
      }
    }
  } catch (e) {
    await ps.release();
    return 'na ' + shortError(e);
  }

  let kernel = {us: NaN, count: 0};
  let modelRun = {us: NaN, count: 0};
  try {
    ps.endProfiling();
    await ps.release();
    const events = readProfile(prefix);
    kernel = medianDur(events, (e) => e.cat === 'Node' && String(e.name).endsWith('_kernel_time'));
    modelRun = medianDur(events, (e) => e.cat === 'Session' && e.name === 'model_run');
  } catch (e) {
    process.stderr.write(`ort_bench: profiling ${model}: ${shortError(e)}\n`);
  }
  if (global.gc) global.gc();
  return `ok ${runs.ns.toFixed(1)} ${runs.samples} ${kernel.us} ${kernel.count} ${modelRun.us} ${hash}`;
}

function shortError(e) {
  const text = String((e && e.message) || e).split('\n')[0];
  return text.replace(/\s+/g, ' ').slice(0, 200);
}

async function serve() {
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    process.stdout.write(`fail cannot load onnxruntime-node: ${shortError(e)}\n`);
    process.exit(1);
  }
  // Keep ONNX Runtime's own warnings (unsupported types) off the table.
  try {
    ort.env.logLevel = 'error';
  } catch (e) {
    // older bindings: ignore
  }
  profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'onyx-bench-ort-'));
  process.on('exit', () => fs.rmSync(profileDir, {recursive: true, force: true}));
  const version = (ort.env && ort.env.versions && ort.env.versions.common) || 'unknown';
  process.stdout.write(`ready ${version}\n`);
  const lines = readline.createInterface({input: process.stdin, terminal: false});
  for await (const line of lines) {
    const words = line.trim().split(/\s+/);
    let reply;
    try {
      if (words[0] === 'run' && words.length === 7) reply = await runCase(ort, words.slice(1));
      else if (words[0] === 'quit') break;
      else reply = `na bad request: ${line}`;
    } catch (e) {
      reply = 'na ' + shortError(e);
    }
    process.stdout.write(reply + '\n');
  }
  process.exit(0);
}

if (process.argv.includes('--serve')) {
  serve();
} else if (process.argv.includes('--version')) {
  console.log(require('onnxruntime-node/package.json').version);
} else {
  process.stderr.write('usage: node ort_bench.js --serve | --version\n');
  process.exit(2);
}
