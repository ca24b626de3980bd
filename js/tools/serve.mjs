#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// A static file server on 127.0.0.1, for the demo page and the browser
// test (which starts and stops it itself):
//
//   node js/tools/serve.mjs [PORT]       serves the repository's root;
//                                        open /examples/web/ (port 8080)
//
// Files only: a folder, a path outside the mounts, a symbolic link out of
// them, or a missing file is 404. Types for .wasm (application/wasm, which
// WebAssembly streaming needs), .js/.mjs, .html, .json and the rest.
import { createReadStream, realpathSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

/** The file a URL path names under mounts ({ '/prefix/': dir }), or null. */
function resolve(mounts, urlPath) {
  for (const [prefix, dir] of Object.entries(mounts)) {
    if (!urlPath.startsWith(prefix)) continue;
    const root = realpathSync(dir);
    let file = path.join(root, decodeURIComponent(urlPath.slice(prefix.length)));
    if (urlPath.endsWith('/')) file = path.join(file, 'index.html');
    try {
      file = realpathSync(file);
    } catch {
      return null;
    }
    const inside = file === root || file.startsWith(root + path.sep);
    return inside && statSync(file).isFile() ? file : null;
  }
  return null;
}

/**
 * Starts a server for mounts ({ '/prefix/': folder }, the longest prefixes
 * first) on 127.0.0.1 at port (0: any free one). Resolves to { url, close }.
 */
export async function serve(mounts, port = 0) {
  const ordered = Object.fromEntries(Object.entries(mounts).sort((a, b) => b[0].length - a[0].length));
  const server = createServer((req, res) => {
    const urlPath = new URL(req.url, 'http://127.0.0.1').pathname;
    const file = req.method === 'GET' || req.method === 'HEAD' ? resolve(ordered, urlPath) : null;
    if (file === null) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`${urlPath}: not found\n`);
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise((ok, fail) => server.once('error', fail).listen(port, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((ok) => server.close(ok)),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const { url } = await serve({ '/': root }, Number(process.argv[2] ?? 8080));
  console.log(`serving ${root} at ${url}/ (the demo: ${url}/examples/web/); Ctrl-C stops`);
}
