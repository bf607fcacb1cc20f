/**
 * Size budgets of what a shopper downloads (run `npm run build` first). The runtime and the frame are measured as
 * the js listener serves them (server/src/http/js-app.ts, in process): the gzip bytes a browser that accepts gzip
 * gets, with the brotli bytes beside them. The loader is an npm package bundled by the merchant: gzip -9 of the
 * built file, and so are the React bindings (packages/react). Prints a table and exits 1 when a budget is exceeded or a file is missing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createJsApp } from '../server/src/http/js-app';
import { createLogger } from '../server/src/logger';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

export interface Budget {
  name: string;
  files: string[];
  /** The URL path each file is served at by the js listener; absent: not served (the npm loader). */
  served?: string[];
  limit: number;
}

const gzipSize = (path: string) => gzipSync(readFileSync(path), { level: 9 }).length;

const js = createJsApp({ logger: createLogger('silent'), distDir: resolve(ROOT, 'dist'), publicBaseUrl: 'https://api.example.com', publicJsUrl: 'https://js.example.com', frameAncestors: [] });

/** The bytes the js listener answers for `path` with `Accept-Encoding: encoding`. */
async function servedSize(path: string, encoding: 'gzip' | 'br'): Promise<number> {
  const response = await js.request(path, { headers: { 'accept-encoding': encoding } });
  if (!response.ok || response.headers.get('content-encoding') !== encoding) throw new Error(`${path} is not served ${encoding}-encoded`);
  return (await response.arrayBuffer()).byteLength;
}

/** The scripts the frame document loads before it can render: module entries and their modulepreloads. */
export function frameInitialScripts(html: string): string[] {
  const urls = [
    ...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g),
    ...html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/g),
  ].map((match) => match[1] as string);
  return [...new Set(urls)].map((url) => resolve(ROOT, 'dist/frame', url.replace(/^\/frame\//, '')));
}

const FRAME_HTML = resolve(ROOT, 'dist/frame/index.html');

/**
 * The frame's critical path, counted in one budget: the frame document itself (served at /frame/, with its inline
 * script and styles; every mount loads it) and the scripts it loads before it can render.
 */
export function frameInitialBudget(html: string | undefined, limit: number): Budget {
  const budget = { name: 'frame initial (served: /frame/ and its scripts)', limit };
  // Not built: the document is reported missing.
  if (html === undefined) return { ...budget, files: [FRAME_HTML], served: [] };
  const scripts = frameInitialScripts(html);
  // A document that names no scripts is a broken frame build: no files, which the check reports as missing.
  if (scripts.length === 0) return { ...budget, files: [], served: [] };
  return { ...budget, files: [FRAME_HTML, ...scripts], served: ['/frame/', ...scripts.map((file) => `/frame/${file.split('/dist/frame/')[1]}`)] };
}

function budgets(): Budget[] {
  return [
    { name: 'loader (loader/dist/index.js)', files: [resolve(ROOT, 'loader/dist/index.js')], limit: 1024 },
    // What the React bindings add to a merchant's bundle (react itself is the app's): gzip -9 of the built file.
    { name: 'React bindings (packages/react/dist/index.js)', files: [resolve(ROOT, 'packages/react/dist/index.js')], limit: 1536 },
    { name: 'runtime (served at /v1/)', files: [resolve(ROOT, 'dist/runtime/rail.js')], served: ['/v1/'], limit: 10 * 1024 },
    frameInitialBudget(existsSync(FRAME_HTML) ? readFileSync(FRAME_HTML, 'utf8') : undefined, 40 * 1024),
  ];
}

async function main(): Promise<void> {
  let failed = false;
  const rows: string[][] = [['budget', 'files', 'gzip bytes', 'brotli bytes', 'limit (gzip)', 'result']];
  for (const budget of budgets()) {
    const missing = budget.files.filter((file) => !existsSync(file));
    if (missing.length > 0 || budget.files.length === 0) {
      failed = true;
      rows.push([budget.name, String(budget.files.length), '-', '-', String(budget.limit), `MISSING ${missing.join(', ') || 'no scripts'}`]);
      continue;
    }
    let size = 0;
    let brotli = 0;
    if (budget.served === undefined) size = budget.files.reduce((sum, file) => sum + gzipSize(file), 0);
    else {
      for (const path of budget.served) {
        size += await servedSize(path, 'gzip');
        brotli += await servedSize(path, 'br');
      }
    }
    const ok = size <= budget.limit;
    failed ||= !ok;
    rows.push([budget.name, String(budget.files.length), String(size), budget.served === undefined ? '-' : String(brotli), String(budget.limit), ok ? `ok (${Math.round((size / budget.limit) * 100)}%)` : 'OVER']);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  '));
  if (failed) {
    console.error('\nSize budget check failed.');
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
