// SPDX-License-Identifier: MIT
// onyx-runtime in a real browser: Debian's Chromium, driven by
// playwright-core, against pages served on 127.0.0.1 by a server this test
// starts and stops. The package is packed (npm pack) and installed into a
// staged app, as a user's project has it; the suite (suite/browser.js: the
// suites' cases bit for bit, and the browser's own checks) then runs
//   - with no bundler, through an import map,
//   - bundled by esbuild (--bundle --platform=browser, minified),
//   - built by Vite,
//   - in a Web Worker (a module worker bundled by esbuild),
//   - in a service worker (a module service worker, where import() is
//     forbidden),
// and the demo page (examples/web/) and a script written for
// onnxruntime-web (test/ort-web-app/) are driven too. It measures the
// module and the JavaScript a page loads (minified, gzipped), and saves
// screenshots and the figures in ONYX_JS_ARTIFACTS (js/build.sh: the
// build's js-artifacts/).
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';

import { installPacked, jsDir, noDeps, noWasm, suiteCases } from '../tools/helpers.js';
import { summary } from '../suite/cases.js';
import { serve } from '../tools/serve.mjs';

const repo = path.join(jsDir, '..');
const chromium = process.env.ONYX_CHROMIUM ?? '/usr/bin/chromium';
const artifacts = process.env.ONYX_JS_ARTIFACTS ?? path.join(tmpdir(), 'onyx-js-artifacts');

function why() {
  if (noWasm) return noWasm;
  if (!existsSync(chromium)) return `no Chromium at ${chromium} (apt-get install chromium, or set ONYX_CHROMIUM)`;
  if (noDeps) return noDeps;
  return false;
}
const skip = why();
// The flags of a quiet headless Chromium: no sandbox (root), no GPU, and
// none of the background connections a fresh profile makes.
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PAGE_TIMEOUT = 240_000;

let stage;
let server;
let browser;
const sizes = {};

// ---- The staged app ----------------------------------------------------------

const page = (title, body, head = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,">${head}
<style>body{font:14px system-ui,sans-serif;margin:2em}td,th{padding:2px 10px;text-align:left}
pre{color:#b00}</style></head>
<body><h1>onyx-runtime: ${title}</h1><p id="status">running...</p><p id="progress"></p>
<table id="results"></table><pre id="failures"></pre>${body}</body></html>
`;
const moduleScript = (src) => `<script type="module" src="${src}"></script>`;
// The package's ES modules by name, for pages with no bundler.
const IMPORT_MAP = `<script type="importmap">${JSON.stringify({
  imports: {
    'onyx-runtime': '/app/node_modules/onyx-runtime/lib/browser.js',
    'onnxruntime-common': '/app/node_modules/onnxruntime-common/dist/esm/index.js',
    // Code written for onnxruntime-web, unchanged, gets onyx.
    'onnxruntime-web': '/app/node_modules/onyx-runtime/lib/browser.js',
  },
})}</script>`;

async function esbuildBundle(entry, outdir, extra = {}) {
  const { build } = await import('esbuild');
  return build({
    entryPoints: [entry], outdir, bundle: true, platform: 'browser', format: 'esm', minify: true,
    loader: { '.wasm': 'file' }, metafile: true, logLevel: 'warning', ...extra,
  });
}

async function viteBuild(app) {
  const { build } = await import('vite');
  const root = path.join(app, 'suite', 'pages');
  writeFileSync(path.join(root, 'vite.html'), page('Vite', moduleScript('./vite.js')));
  await build({
    root, base: './', logLevel: 'warn', configFile: false,
    build: {
      outDir: path.join(app, 'dist-vite'), emptyOutDir: true,
      rollupOptions: { input: path.join(root, 'vite.html') },
    },
  });
}

/** The sizes of what a page loads: onyx-lib.wasm, and a minimal app's JavaScript bundled and minified. */
async function measure(app) {
  const file = (f) => {
    const bytes = readFileSync(f);
    return { bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  };
  sizes.wasm = file(path.join(app, 'node_modules', 'onyx-runtime', 'onyx-lib.wasm'));
  const entry = path.join(app, 'size.js');
  writeFileSync(entry, `import { InferenceSession, Tensor } from 'onyx-runtime';
    const s = await InferenceSession.create('model.onnx');
    console.log(await s.run({ x: new Tensor('float32', [1], [1]) }));\n`);
  await esbuildBundle(entry, path.join(app, 'dist-size'));
  sizes.js = file(path.join(app, 'dist-size', 'size.js'));
}

/** Writes the pages and builds the bundles into app. */
async function buildApp(app) {
  cpSync(path.join(jsDir, 'suite'), path.join(app, 'suite'), { recursive: true });
  const pages = path.join(app, 'suite', 'pages');
  writeFileSync(path.join(pages, 'importmap.html'), page('import map', moduleScript('./importmap.js'), IMPORT_MAP));
  for (const [name, title, script, worker] of [['esbuild', 'esbuild', 'esbuild.js'], ['worker', 'Web Worker',
    'worker-page.js', 'worker.js'], ['sw', 'service worker', 'sw-page.js', 'sw.js']]) {
    const out = path.join(app, `dist-${name}`);
    const entry = path.join(pages, worker ?? script);
    const built = await esbuildBundle(entry, out);
    const src = worker ? `/app/suite/pages/${script}` : `./${script}`;
    writeFileSync(path.join(out, 'index.html'), page(title, moduleScript(src)));
    if (name === 'esbuild') sizes.metafile = built.metafile;
  }
  await viteBuild(app);
  // The onnxruntime-web script, unchanged, beside its model.
  const ortWeb = path.join(app, 'ort-web');
  mkdirSync(ortWeb);
  cpSync(path.join(jsDir, 'test', 'ort-web-app', 'app.js'), path.join(ortWeb, 'app.js'));
  cpSync(path.join(repo, 'examples', 'chain.onnx'), path.join(ortWeb, 'chain.onnx'));
  writeFileSync(path.join(ortWeb, 'index.html'), page('a script for onnxruntime-web', moduleScript('./app.js'),
    IMPORT_MAP));
  await measure(app);
}

/**
 * cases.json (the case list, and where each file is in cases.bin) and
 * cases.bin (every case's files end to end) in folder, for suite/browser.js.
 */
function writeCases(folder, cases) {
  mkdirSync(folder);
  const chunks = [];
  let offset = 0;
  const list = cases.map(({ suite, name, dir, files }) => {
    const at = {};
    // The files the runner reads; a bad case's data files, links and
    // folders stay out (the model, from memory, never reaches them).
    for (const f of files.filter((n) => n === 'model.onnx' || n === 'expect.txt' || n.endsWith('.pb'))) {
      const bytes = readFileSync(path.join(dir, f));
      at[f] = [offset, bytes.length];
      chunks.push(bytes);
      offset += bytes.length;
    }
    return { suite, name, files, at };
  });
  writeFileSync(path.join(folder, 'cases.json'), JSON.stringify(list));
  writeFileSync(path.join(folder, 'cases.bin'), Buffer.concat(chunks));
}

/** The server's folders: the app, the repository's examples and js/ (the demo), and the cases. */
function mounts(app, cases) {
  const m = { '/': path.join(stage, 'root'), '/app/': app, '/examples/': path.join(repo, 'examples'), '/js/': jsDir };
  for (const c of cases) m[`/cases/${c.suite}/${encodeURIComponent(c.name)}/`] = c.dir;
  return m;
}

before(async () => {
  if (skip) return;
  stage = mkdtempSync(path.join(tmpdir(), 'onyx-browser-'));
  mkdirSync(artifacts, { recursive: true });
  const app = path.join(stage, 'app');
  const files = installPacked(stage, path.join(app, 'node_modules'));
  assert.ok(files.includes('onyx-lib.wasm') && files.includes('lib/browser.js'), `packed: ${files}`);
  await buildApp(app);
  const cases = suiteCases();
  writeCases(path.join(stage, 'root'), cases);
  server = await serve(mounts(app, cases));
  const { chromium: pw } = await import('playwright-core');
  browser = await pw.launch({ executablePath: chromium, args: FLAGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (stage) rmSync(stage, { recursive: true, force: true });
});

// ---- Driving the pages -------------------------------------------------------

/** Opens url in a fresh context; resolves to { page, context, errors } (errors: the page's uncaught ones). */
async function open(url) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // The 404s the suite asks for (a missing model, a folder) are not errors.
  const expected = (m) => /\/nosuch\.onnx$|\/model\.onnx$/.test(m.location().url) && /404/.test(m.text());
  page.on('console', (m) => m.type() === 'error' && !expected(m) && errors.push(`${m.text()} ${m.location().url}`));
  await page.goto(`${server.url}${url}`);
  return { page, context, errors };
}

/** Loads a suite page, waits for its report and checks it; a screenshot is kept. */
async function suitePage(t, url, shot) {
  const { page, context, errors } = await open(url);
  try {
    await page.waitForFunction(() => globalThis.__onyxReport !== undefined, null, { timeout: PAGE_TIMEOUT });
    const report = await page.evaluate(() => globalThis.__onyxReport);
    await page.screenshot({ path: path.join(artifacts, `${shot}.png`), fullPage: true });
    assert.equal(report.error, undefined, report.error);
    t.diagnostic(`js: ${report.mode}: ${summary(report.cases).line}, ${report.checks.length} checks, ` +
      `${report.cases.skips.length} skipped, ${report.seconds.toFixed(1)} s`);
    assert.deepEqual(report.cases.failures, []);
    assert.deepEqual(report.checks.filter((c) => c.why !== null), []);
    assert.ok(Object.values(report.cases.suites).reduce((n, c) => n + c.passed, 0) > 0, 'cases ran');
    assert.deepEqual(errors, []);
    assert.match(report.userAgent, /Chrome\//);
    return report;
  } finally {
    await context.close();
  }
}

test('no bundler: an import map', { skip }, (t) => suitePage(t, '/app/suite/pages/importmap.html', 'importmap'));

test('esbuild: --bundle --platform=browser', { skip }, async (t) => {
  // The browser build reaches no node: module and no import().
  const inputs = Object.entries(sizes.metafile.inputs);
  const imports = inputs.flatMap(([, i]) => i.imports);
  assert.deepEqual(imports.filter((i) => i.path.startsWith('node:') || i.kind === 'dynamic-import'), []);
  assert.ok(inputs.some(([f]) => f.includes('onyx-runtime/lib/browser.js')), 'the browser entry');
  await suitePage(t, '/app/dist-esbuild/index.html', 'esbuild');
});

test('Vite: vite build', { skip }, (t) => suitePage(t, '/app/dist-vite/vite.html', 'vite'));

test('a Web Worker', { skip }, (t) => suitePage(t, '/app/dist-worker/index.html', 'worker'));

test('a service worker', { skip }, (t) => suitePage(t, '/app/dist-sw/index.html', 'service-worker'));

test('a script written for onnxruntime-web runs unchanged', { skip }, async () => {
  const { page, context, errors } = await open('/app/ort-web/index.html');
  try {
    const logged = page.waitForEvent('console', { predicate: (m) => m.type() === 'log', timeout: 60_000 });
    assert.match((await logged).text(), /floor: -4,-3,-2,-1,0,2,3,4/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the demo page: the bundled example, typed values, a model file picked', { skip }, async () => {
  const { page, context, errors } = await open('/examples/web/');
  try {
    await page.waitForSelector('#run:not([disabled])', { timeout: 60_000 });
    assert.match(await page.textContent('#model'), /chain\.onnx/);
    assert.match(await page.textContent('#inputs'), /x\s*float32\s*\[8\]/);
    await page.fill('textarea[data-input="x"]', '-4 -3 -2 -0.5, 0.5 2 3 4');
    await page.click('#run');
    await page.waitForSelector('#outputs [data-output="floor"]');
    assert.equal(await page.textContent('#outputs [data-output="floor"] .values'), '-4 -3 -2 -1 0 2 3 4');
    assert.match(await page.textContent('#time'), /\d+(\.\d+)? (ms|µs) per run/);
    await page.screenshot({ path: path.join(artifacts, 'demo.png'), fullPage: true });
    // A model of the user's own: Sign on int8 [3].
    const { oneNodeModel } = await import('../suite/model.js');
    await page.setInputFiles('#file', { name: 'sign.onnx', mimeType: 'application/octet-stream',
      buffer: Buffer.from(oneNodeModel('Sign', ['a'], 3, [3])) });
    await page.waitForFunction(() => document.querySelector('#model').textContent.includes('sign.onnx'));
    assert.match(await page.textContent('#inputs'), /a\s*int8\s*\[3\]/);
    await page.fill('textarea[data-input="a"]', '-7 0 9');
    await page.click('#run');
    await page.waitForSelector('#outputs [data-output="y"]');
    assert.equal(await page.textContent('#outputs [data-output="y"] .values'), '-1 0 1');
    // A wrong value count is onyx's error, shown with its status.
    await page.fill('textarea[data-input="a"]', '1 2');
    await page.click('#run');
    await page.waitForSelector('#error:not(:empty)');
    assert.match(await page.textContent('#error'), /ONYX_|2 values/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('sizes: the module and the JavaScript a page loads', { skip }, (t) => {
  const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
  t.diagnostic(`js: sizes: onyx-lib.wasm ${sizes.wasm.bytes} bytes (${kb(sizes.wasm.bytes)}), gzipped ` +
    `${sizes.wasm.gzip}; the JavaScript of a page (onyx-runtime and onnxruntime-common, esbuild --minify) ` +
    `${sizes.js.bytes} bytes, gzipped ${sizes.js.gzip}`);
  writeFileSync(path.join(artifacts, 'sizes.json'), `${JSON.stringify({ wasm: sizes.wasm, js: sizes.js }, null, 2)}\n`);
  // Budgets well above today's figures: a change that doubles either shows here.
  assert.ok(sizes.wasm.bytes < 200_000, `onyx-lib.wasm is ${sizes.wasm.bytes} bytes`);
  assert.ok(sizes.js.bytes < 60_000, `the page's JavaScript is ${sizes.js.bytes} bytes`);
});
