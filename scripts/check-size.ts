/**
 * Size budgets of what a shopper downloads, gzip -9 of the built files (run `npm run build` first).
 * Prints a table and exits 1 when a budget is exceeded or a file is missing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

interface Budget {
  name: string;
  files: string[];
  limit: number;
}

const gzipSize = (path: string) => gzipSync(readFileSync(path), { level: 9 }).length;

/** The scripts the frame document loads before it can render: module entries and their modulepreloads. */
export function frameInitialScripts(html: string): string[] {
  const urls = [
    ...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g),
    ...html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/g),
  ].map((match) => match[1] as string);
  return [...new Set(urls)].map((url) => resolve(ROOT, 'dist/frame', url.replace(/^\/frame\//, '')));
}

function budgets(): Budget[] {
  const frameHtml = resolve(ROOT, 'dist/frame/index.html');
  return [
    { name: 'loader (loader/dist/index.js)', files: [resolve(ROOT, 'loader/dist/index.js')], limit: 1229 },
    { name: 'runtime (dist/runtime/rail.js)', files: [resolve(ROOT, 'dist/runtime/rail.js')], limit: 10 * 1024 },
    {
      name: 'frame initial JS (dist/frame/index.html scripts)',
      files: existsSync(frameHtml) ? frameInitialScripts(readFileSync(frameHtml, 'utf8')) : [frameHtml],
      limit: 40 * 1024,
    },
  ];
}

function main(): void {
  let failed = false;
  const rows: string[][] = [['budget', 'files', 'gzip bytes', 'limit', 'result']];
  for (const budget of budgets()) {
    const missing = budget.files.filter((file) => !existsSync(file));
    if (missing.length > 0 || budget.files.length === 0) {
      failed = true;
      rows.push([budget.name, String(budget.files.length), '-', String(budget.limit), `MISSING ${missing.join(', ') || 'no scripts'}`]);
      continue;
    }
    const size = budget.files.reduce((sum, file) => sum + gzipSize(file), 0);
    const ok = size <= budget.limit;
    failed ||= !ok;
    rows.push([budget.name, String(budget.files.length), String(size), String(budget.limit), ok ? `ok (${Math.round((size / budget.limit) * 100)}%)` : 'OVER']);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  '));
  if (failed) {
    console.error('\nSize budget check failed.');
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
