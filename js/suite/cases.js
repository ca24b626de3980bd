// SPDX-License-Identifier: MIT
// The suites' cases through onyx-runtime's API, wherever it runs: Node.js
// (test/conformance.test.js) and Chromium's page, Web Worker and service
// worker (test/browser.test.js). It imports nothing itself: it is given the
// package's namespace and a way to read the cases' files.
//
// A conformance case (the generated spec, ops and graphs cases, Debian's
// ONNX backend data) is model.onnx with test_data_set_N/input_K.pb and
// output_K.pb: the inputs are bound by position, and every output must
// equal its file bit for bit (type, dims and element bytes: NaN payloads
// and signed zeros included). A bad-model case (tests/gen, as
// tests/check_bad_models.c reads it) is model.onnx and expect.txt: loading
// it, or with "stage run" running it on input_K.pb, must fail with the
// status and with messages containing each "message" line.

/**
 * What a case list entry is: { suite, name, files } with files the names
 * in the case's folder (test_data_set_N/ files as 'test_data_set_N/x.pb').
 * read(suite, name, file) resolves to the file's bytes; source(suite,
 * name, file) is what InferenceSession.create is given for a model that
 * is not read first (a URL string or URL object in browsers, a path in
 * Node.js), or null to give bytes. io.local is true where paths are read
 * from the file system by the package itself.
 */

/** Whether two tensors have the same type, dims and element bytes. */
export function sameBits(a, b) {
  const bytesOf = (t) => new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const x = bytesOf(a);
  const y = bytesOf(b);
  return a.type === b.type && a.dims.join() === b.dims.join() && x.length === y.length &&
    x.every((v, i) => v === y[i]);
}

// The NaNs of the half-float types: every exponent bit set, a non-zero mantissa.
const HALF_NAN = { float16: 0x7c00, bfloat16: 0x7f80 };

/** Whether element i of the bytes of a tensor of ONNX type `type` is a NaN. */
function isNaNAt(type, bytes, i) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (type === 'float32') return Number.isNaN(v.getFloat32(4 * i, true));
  if (type === 'float64') return Number.isNaN(v.getFloat64(8 * i, true));
  return type in HALF_NAN && (v.getUint16(2 * i, true) & 0x7fff) > HALF_NAN[type];
}

/**
 * Whether got equals want as the suites compare (cli/test.c): the same
 * type, dims and element bits, a NaN matching any NaN (the reference
 * quiets a signalling NaN that onyx, like Sign and Clip, passes through).
 * type is the ONNX element type ('bfloat16' for a 'uint16' tensor of one).
 */
export function sameValues(got, want, type) {
  if (got.type !== want.type || got.dims.join() !== want.dims.join()) return false;
  const bytesOf = (t) => new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const [g, w] = [bytesOf(got), bytesOf(want)];
  const size = got.data.BYTES_PER_ELEMENT;
  if (g.length !== w.length) return false;
  for (let i = 0; i < g.length / size; i++) {
    const same = g.subarray(i * size, (i + 1) * size).every((b, k) => b === w[i * size + k]);
    if (!same && !(isNaNAt(type, g, i) && isNaNAt(type, w, i))) return false;
  }
  return true;
}

const byIndex = (prefix) => (a, b) => parseInt(a.slice(prefix.length), 10) - parseInt(b.slice(prefix.length), 10);

/** The files of folder (a prefix, '' or 'test_data_set_0/') named PREFIX<k>.pb, in k's order. */
function numbered(files, folder, prefix) {
  const inFolder = (f) => f.startsWith(folder + prefix) && f.endsWith('.pb') && !f.slice(folder.length).includes('/');
  return files.filter(inFolder)
    .map((f) => f.slice(folder.length)).sort(byIndex(prefix)).map((f) => folder + f);
}

/**
 * expect.txt as tests/check_bad_models.c reads it, on a 32-bit host (the
 * module is wasm32): { status, messages, stageRun, mutation, truncate }.
 */
export function parseExpect(text) {
  const e = { status: null, messages: [], stageRun: false, mutation: null, truncate: [] };
  let on32Seen = false;
  for (let line of text.split(/\r?\n/)) {
    if (line === '') continue;
    if (line.startsWith('on32 ')) {
      if (!on32Seen) [e.messages, e.status, on32Seen] = [[], null, true];
      line = line.slice(5);
    }
    const [word, ...rest] = line.split(' ');
    if (word === 'status') e.status = rest.join(' ');
    else if (word === 'message') e.messages.push(rest.join(' '));
    else if (line === 'stage run') e.stageRun = true;
    else if (word === 'mutate') e.mutation = rest.join(' ');
    else if (word === 'truncate') e.truncate = rest;
    else throw new Error(`expect.txt: cannot read the line '${line}'`);
  }
  return e;
}

/** Why error e is not the failure expected (statuses allowed, messages contained), or null. */
function wrongFailure(e, statuses, messages) {
  if (e === null) return 'it did not fail';
  if (!statuses.includes(e.status)) return `${e.status ?? e.name}: ${e.message} (expected ${statuses.join(' or ')})`;
  const missing = messages.filter((m) => !e.message.includes(m));
  return missing.length ? `message '${e.message}' lacks '${missing.join("', '")}'` : null;
}

async function failure(promise) {
  try {
    const value = await promise;
    if (value?.release) await value.release();
    return null;
  } catch (e) {
    return e;
  }
}

/** The model's bytes, or what create() takes instead (alternating string, URL and bytes). */
async function modelSource(io, c, k) {
  const given = k % 3 === 2 ? null : io.source?.(c.suite, c.name, 'model.onnx', k % 3 === 1);
  return given ?? io.read(c.suite, c.name, 'model.onnx');
}

async function decodeAll(ort, io, c, files) {
  return Promise.all(files.map(async (f) => ort.decodeTensor(await io.read(c.suite, c.name, f))));
}

/** One conformance case; resolves to null or why it failed. */
async function conformance(ort, io, c, k) {
  const sets = [...new Set(c.files.filter((f) => f.startsWith('test_data_set_')).map((f) => f.split('/')[0]))];
  if (sets.length === 0) return 'the case has no test_data_set_N';
  let session;
  try {
    session = await ort.InferenceSession.create(await modelSource(io, c, k));
  } catch (e) {
    if (fromMemoryRefusal(e)) return { skip: `external data: ${e.message}` };
    throw e;
  }
  try {
    for (const set of sets.sort(byIndex('test_data_set_'))) {
      const ins = await decodeAll(ort, io, c, numbered(c.files, `${set}/`, 'input_'));
      const want = await decodeAll(ort, io, c, numbered(c.files, `${set}/`, 'output_'));
      const got = await session.run(feedsOf(session, ins));
      if (session.outputNames.length !== want.length) return `${set}: ${want.length} outputs expected`;
      for (const [i, name] of session.outputNames.entries()) {
        if (!sameValues(got[name], want[i].tensor, want[i].type)) {
          return `${set} ${name}: ${got[name].type} [${got[name].dims}] ${got[name].data} != ` +
            `${want[i].tensor.type} [${want[i].tensor.dims}] ${want[i].tensor.data}`;
        }
        if (session.outputMetadata[i].type !== want[i].type) {
          return `${name}: metadata type ${session.outputMetadata[i].type}, file ${want[i].type}`;
        }
      }
    }
    return null;
  } finally {
    await session.release();
  }
}

// Files a bad case may hold besides its model, expectation and inputs:
// external data, links and folders, which a model from memory never sees.
const isOwnFile = (f) => f === 'model.onnx' || f === 'expect.txt' || /^input_\d+\.pb$/.test(f);

/**
 * Whether e is onyx's refusal of external data in a model from memory
 * (onnxruntime-web reads models from bytes, and so does onyx-runtime):
 * such a model's files are out of its reach, whatever they hold.
 */
const fromMemoryRefusal = (e) => e?.status === 'ONYX_EXTERNAL_DATA' && /needs the model's folder/.test(e.message);

/** Feeds of the session's inputs, by position, from decoded tensors (fewer where fewer are given). */
const feedsOf = (session, ins) => Object.fromEntries(ins.map((t, i) => [session.inputNames[i], t.tensor]));

/** Every strict prefix of a valid model fails, from memory, with one of statuses. */
async function truncations(ort, bytes, statuses) {
  const whole = await failure(ort.InferenceSession.create(bytes));
  if (whole !== null) return `the whole model fails: ${whole.message}`;
  for (let n = 0; n < bytes.length; n++) {
    const why = wrongFailure(await failure(ort.InferenceSession.create(bytes.slice(0, n))), statuses, []);
    if (why) return `the first ${n} of ${bytes.length} bytes: ${why}`;
  }
  return null;
}

/**
 * One bad-model case; resolves to null, why it failed, { skip: why }, or
 * { refused: true } for a case about external data files that failed, as
 * it must, at load, where the model from memory cannot reach them.
 */
async function bad(ort, io, c) {
  const e = parseExpect(new TextDecoder().decode(await io.read(c.suite, c.name, 'expect.txt')));
  if (e.mutation !== null) {
    return { skip: `mutate ${e.mutation}: a misuse of the C API (NULL pointers, short buffers, counts) ` +
      'that onnxruntime\'s JavaScript API cannot express' };
  }
  if (c.files.includes('model.onnx/')) {
    // The "model" is a folder: only a path or URL can name it. The words
    // of the message are onyx's where it reads files itself (Node.js); a
    // web server answers for a folder as it likes.
    const given = io.source(c.suite, c.name, 'model.onnx', false);
    return wrongFailure(await failure(ort.InferenceSession.create(given)), [e.status], io.local ? e.messages : []);
  }
  const bytes = await io.read(c.suite, c.name, 'model.onnx');
  if (e.truncate.length > 0) return truncations(ort, bytes, e.truncate);
  // A case about files beside the model: from memory, the model cannot
  // reach them, and says so.
  if (!e.stageRun) {
    const refusal = await failure(ort.InferenceSession.create(bytes));
    const aboutFiles = !c.files.every(isOwnFile) || ['ONYX_EXTERNAL_DATA', 'ONYX_IO'].includes(e.status);
    if (aboutFiles && fromMemoryRefusal(refusal)) return { refused: true };
    return wrongFailure(refusal, [e.status], e.messages);
  }
  const session = await ort.InferenceSession.create(bytes);
  try {
    const ins = await decodeAll(ort, io, c, numbered(c.files, '', 'input_'));
    return wrongFailure(await failure(session.run(feedsOf(session, ins))), [e.status], e.messages);
  } finally {
    await session.release();
  }
}

/**
 * Runs cases (see above) through ort; io is { read, source, local }.
 * Resolves to { suites: { name: { passed, failed, skipped,
 * refusedFromMemory } }, failures: ['suite/case: why'], skips: ['suite/case:
 * why'] }; onCase(done, total) reports progress.
 */
export async function runCases(ort, cases, io, onCase = () => {}) {
  const report = { suites: {}, failures: [], skips: [] };
  for (const [k, c] of cases.entries()) {
    const counts = (report.suites[c.suite] ??= { passed: 0, failed: 0, skipped: 0 });
    let why;
    try {
      why = c.suite === 'bad' ? await bad(ort, io, c) : await conformance(ort, io, c, k);
    } catch (e) {
      why = `${e.status ?? e.name}: ${e.message}`;
    }
    if (why === null) counts.passed++;
    else if (why.refused) {
      counts.passed++;
      counts.refusedFromMemory = (counts.refusedFromMemory ?? 0) + 1;
    } else if (why.skip) {
      counts.skipped++;
      report.skips.push(`${c.suite}/${c.name}: ${why.skip}`);
    } else {
      counts.failed++;
      report.failures.push(`${c.suite}/${c.name}: ${why}`);
    }
    onCase(k + 1, cases.length);
  }
  return report;
}

/**
 * A report in a line ("spec 22/22, bad 167/167 (19 external-data refusals),
 * ...") and its skips grouped by reason (the cases' names after it).
 */
export function summary(report) {
  const counts = Object.entries(report.suites).map(([suite, c]) => `${suite} ${c.passed}/${c.passed + c.failed}` +
    (c.refusedFromMemory ? ` (${c.refusedFromMemory} external-data refusals)` : ''));
  const groups = new Map();
  for (const skip of report.skips) {
    const [where, ...why] = skip.split(': ');
    const reason = why.join(': ').replace(/^mutate \S+: /, 'mutate: ');
    groups.set(reason, [...(groups.get(reason) ?? []), where]);
  }
  return { line: counts.join(', '), skips: [...groups].map(([reason, names]) => `${names.join(', ')}: ${reason}`) };
}
