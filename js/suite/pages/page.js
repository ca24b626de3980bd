// SPDX-License-Identifier: MIT
// What every page of the browser test shows: the suite's report, rendered
// for a person (and the screenshot) and left in globalThis.__onyxReport
// for the test that drives the page.
import { passed, runSuite } from '../browser.js';

function cell(row, text, tag = 'td') {
  const el = document.createElement(tag);
  el.textContent = text;
  row.append(el);
}

/** Renders report (of the suite run in mode) into the page and hands it to the test. */
export function show(report, mode) {
  const ok = passed(report);
  document.title = `onyx ${mode}: ${ok ? 'PASS' : 'FAIL'}`;
  document.querySelector('#status').textContent =
    `${mode}: ${ok ? 'PASS' : 'FAIL'} in ${report.seconds.toFixed(1)} s (onyx ${report.versions.onyx}, ` +
    `onnxruntime-common ${report.versions.common})`;
  const table = document.querySelector('#results');
  const head = table.insertRow();
  ['suite', 'passed', 'failed', 'skipped'].forEach((h) => cell(head, h, 'th'));
  for (const [suite, c] of Object.entries(report.cases.suites)) {
    const row = table.insertRow();
    [suite, c.passed, c.failed, c.skipped].forEach((v) => cell(row, String(v)));
  }
  for (const { name, why } of report.checks) {
    const row = table.insertRow();
    [name, why === null ? 'ok' : '', why ?? '', ''].forEach((v) => cell(row, v));
  }
  const failures = document.querySelector('#failures');
  failures.textContent = [...report.cases.failures, ...report.checks.filter((c) => c.why).map((c) => c.why)]
    .join('\n');
  globalThis.__onyxReport = { mode, ...report };
}

/** Shows an error that stopped the suite (it fails the test, with its message). */
export function showError(e, mode) {
  document.querySelector('#status').textContent = `${mode}: ERROR ${e.status ?? e.name}: ${e.message}`;
  globalThis.__onyxReport = { mode, error: `${e.status ?? e.name}: ${e.message}\n${e.stack}` };
}

/** Runs the suite in this page with the package's namespace ort. */
export async function runInPage(ort, mode) {
  const progress = document.querySelector('#progress');
  try {
    show(await runSuite(ort, location.href, (text) => (progress.textContent = text)), mode);
  } catch (e) {
    showError(e, mode);
  }
}

/** Runs the suite in a worker (created by start) that posts its report back. */
export function runInWorker(mode, start) {
  start((data) => (data.error ? showError(data.error, mode) : show(data, mode)), (e) => showError(e, mode));
}
