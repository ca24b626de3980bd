// SPDX-License-Identifier: MIT
// The demo page: pick a model file (or the bundled example), see its inputs
// and outputs, type or paste input values, run, and see the outputs and
// the time per run. It uses only the package, through its public API.
import * as ort from 'onyx-runtime';

const EXAMPLE = new URL('../chain.onnx', import.meta.url); // Ceil -> Clip -> Sign, and Floor
const EXAMPLE_VALUES = { x: '-4 -3 -2 -0.5 0.5 2 3 4' };
const TIMING_MS = 200; // how long the timing runs go on

const $ = (selector) => document.querySelector(selector);
let session = null;

function element(tag, attributes = {}, text = '') {
  const el = document.createElement(tag);
  Object.entries(attributes).forEach(([k, v]) => el.setAttribute(k, v));
  el.textContent = text;
  return el;
}

const describe = (m) => `${m.name}  ${m.type}  [${m.shape.join(', ')}]`;

// ---- Values as text -----------------------------------------------------------

/** float32's nearest bfloat16 (round to nearest, ties to even), as its bits; NaN stays NaN. */
function bfloat16Bits(x) {
  const bits = new Uint32Array(Float32Array.of(x).buffer)[0];
  if (Number.isNaN(x)) return (bits >>> 16) | 0x40;
  return (bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16;
}

const bfloat16Value = (bits) => new Float32Array(Uint32Array.of(bits << 16).buffer)[0];

function parseNumber(word) {
  const w = word.toLowerCase();
  if (w === 'nan') return NaN;
  if (w === 'inf' || w === '+inf') return Infinity;
  if (w === '-inf') return -Infinity;
  const v = Number(word);
  if (Number.isNaN(v)) throw new Error(`'${word}' is not a number`);
  return v;
}

/** The Tensor for input m from the text of its values and of its shape. */
function tensorFrom(m, valuesText, shapeText) {
  const words = valuesText.split(/[\s,]+/).filter(Boolean);
  const dims = shapeText.split(/[\s,x×]+/).filter(Boolean).map(Number);
  if (!dims.every((d) => Number.isInteger(d) && d >= 0)) {
    throw new Error(`${m.name}: the shape '${shapeText}' is not a list of sizes`);
  }
  const count = dims.reduce((a, b) => a * b, 1);
  if (words.length !== count) {
    throw new Error(`${m.name}: ${words.length} values for the shape [${dims.join(', ')}] (${count} values)`);
  }
  if (m.type === 'int64' || m.type === 'uint64') return new ort.Tensor(m.type, words.map((w) => BigInt(w)), dims);
  const values = words.map(parseNumber);
  if (m.type === 'bfloat16') return new ort.Tensor('uint16', Uint16Array.from(values, bfloat16Bits), dims);
  if (m.type === 'float16' && typeof Float16Array === 'undefined') {
    throw new Error('float16 input needs a browser with Float16Array');
  }
  return new ort.Tensor(m.type, m.type === 'float16' ? Float16Array.from(values) : values, dims);
}

const showNumber = (v) => (Object.is(v, -0) ? '-0' : String(v));

/** The values of an output as text; bfloat16 ('uint16' bits) as numbers. */
function valuesText(tensor, type) {
  const values = type === 'bfloat16' ? Array.from(tensor.data, bfloat16Value) : Array.from(tensor.data);
  return values.map(showNumber).join(' ');
}

// ---- The page -----------------------------------------------------------------

function showModel(name, bytes) {
  $('#model').textContent = `${name} (${bytes} bytes)`;
  const signature = $('#signature');
  signature.replaceChildren(
    element('div', {}, `inputs:  ${session.inputMetadata.map(describe).join(';  ')}`),
    element('div', {}, `outputs: ${session.outputMetadata.map(describe).join(';  ')}`));
  const inputs = $('#inputs');
  inputs.replaceChildren();
  for (const m of session.inputMetadata) {
    const shape = m.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : 1)).join(' ');
    inputs.append(element('label', { for: `in-${m.name}` }, describe(m)));
    inputs.append(element('textarea', { id: `in-${m.name}`, 'data-input': m.name },
      EXAMPLE_VALUES[m.name] && name === 'chain.onnx' ? EXAMPLE_VALUES[m.name] : ''));
    const field = element('input', { type: 'text', 'data-shape': m.name, 'aria-label': `shape of ${m.name}` });
    field.value = shape;
    inputs.append(element('span', { class: 'meta' }, 'shape '), field);
  }
  $('#outputs').replaceChildren();
  $('#time').textContent = '';
  $('#run').disabled = false;
}

async function load(name, bytes) {
  $('#error').textContent = '';
  $('#run').disabled = true;
  try {
    const next = await ort.InferenceSession.create(bytes);
    await session?.release();
    session = next;
    showModel(name, bytes.byteLength);
  } catch (e) {
    $('#error').textContent = `${name}: ${e.status ? `${e.status}: ` : ''}${e.message}`;
  }
}

function feeds() {
  return Object.fromEntries(session.inputMetadata.map((m) => {
    const values = document.querySelector(`[data-input="${CSS.escape(m.name)}"]`).value;
    const shape = document.querySelector(`[data-shape="${CSS.escape(m.name)}"]`).value;
    return [m.name, tensorFrom(m, values, shape)];
  }));
}

function showOutputs(results) {
  const outputs = $('#outputs');
  outputs.replaceChildren();
  session.outputMetadata.forEach((m) => {
    const t = results[m.name];
    const box = element('div', { 'data-output': m.name });
    box.append(element('div', { class: 'meta' }, `${m.name}  ${m.type}  [${t.dims.join(', ')}]`));
    box.append(element('div', { class: 'values' }, valuesText(t, m.type)));
    outputs.append(box);
  });
}

/** Runs the session again and again for TIMING_MS; resolves to the time of one run in ms. */
async function timePerRun(f) {
  let runs = 0;
  const start = performance.now();
  while (performance.now() - start < TIMING_MS || runs < 3) {
    await session.run(f);
    runs++;
  }
  return { ms: (performance.now() - start) / runs, runs };
}

async function run() {
  $('#error').textContent = '';
  try {
    const f = feeds();
    showOutputs(await session.run(f));
    const { ms, runs } = await timePerRun(f);
    $('#time').textContent = ms < 1 ? `${(ms * 1000).toFixed(1)} µs per run (${runs} runs)`
      : `${ms.toFixed(2)} ms per run (${runs} runs)`;
  } catch (e) {
    $('#outputs').replaceChildren();
    $('#error').textContent = `${e.status ? `${e.status}: ` : ''}${e.message}`;
  }
}

async function loadExample() {
  const response = await fetch(EXAMPLE);
  await load('chain.onnx', new Uint8Array(await response.arrayBuffer()));
}

$('#file').addEventListener('change', async (event) => {
  const file = event.target.files[0];
  if (file) await load(file.name, new Uint8Array(await file.arrayBuffer()));
});
$('#example').addEventListener('click', loadExample);
$('#run').addEventListener('click', run);
ort.info().then(({ version, isa }) => ($('#version').textContent = `onyx ${version}, ${isa}`));
loadExample();
