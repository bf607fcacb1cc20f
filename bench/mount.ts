/**
 * Mount -> ready of the payment element in headless Chromium (/usr/bin/chromium when present), against the real
 * server process on loopback: the time from `element.mount()` to its `ready` event, cold (a fresh browser context:
 * empty cache) and warm (the same context again: runtime and frame files cached), ROUNDS rounds each, medians.
 * Also the bytes the js listener sends for each file (identity, gzip, br). Part of `npm run bench`; never a test.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from '@playwright/test';
import { FIXED_PUBLISHABLE_KEY, FIXED_SECRET_KEY, startServer } from '../server/src/test-support/server-process';

const ROUNDS = Number(process.env['BENCH_MOUNT_ROUNDS'] ?? 7);

export interface MountResult {
  coldMs: number;
  warmMs: number;
  rounds: number;
  files: { path: string; identity: number; gzip: number; br: number }[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** The merchant page: loads /v1/, mounts, and reports mount() -> ready in window.__mountMs. */
const page = (jsUrl: string, clientSecret: string) => `<!doctype html><meta charset="utf-8"><title>mount bench</title>
<div id="payment"></div>
<script src="${jsUrl}/v1/"></script>
<script>
  const rail = Rail(${JSON.stringify(FIXED_PUBLISHABLE_KEY)});
  const element = rail.elements({ clientSecret: ${JSON.stringify(clientSecret)} }).create('payment');
  const start = performance.now();
  element.on('ready', () => { window.__mountMs = performance.now() - start; });
  element.on('loaderror', (event) => { window.__mountError = event.error.code; });
  element.mount('#payment');
</script>`;

async function servedBytes(jsUrl: string, path: string): Promise<{ identity: number; gzip: number; br: number }> {
  // fetch() decodes bodies; read the raw length from a request that does not decode.
  const raw = async (coding: string) => {
    return new Promise<number>((resolve, reject) => {
      request(`${jsUrl}${path}`, { headers: { 'accept-encoding': coding } }, (response) => {
        let length = 0;
        response.on('data', (chunk: Buffer) => (length += chunk.length));
        response.on('end', () => resolve(length));
      }).on('error', reject).end();
    });
  };
  return { identity: await raw('identity'), gzip: await raw('gzip'), br: await raw('br') };
}

export async function mountBench(): Promise<MountResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rail-bench-mount-'));
  const server = await startServer({ dataDir, logLevel: 'error' });
  const jsUrl = /pinned runtime\s+(http:\/\/[^/\s]+)\/v1\//.exec(server.output())?.[1];
  let merchant: Server | undefined;
  const browser = await chromium.launch({ executablePath: existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined });
  try {
    if (!jsUrl) throw new Error(`no js_url in the server banner:\n${server.output()}`);
    merchant = createServer(async (_request, response) => {
      const created = await fetch(`${server.baseUrl}/payments`, {
        method: 'POST',
        headers: { 'api-key': FIXED_SECRET_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 10000, currency: 'INR' }),
      });
      const { client_secret } = (await created.json()) as { client_secret: string };
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(page(jsUrl, client_secret));
    });
    await new Promise<void>((resolve) => merchant!.listen(0, '127.0.0.1', resolve));
    const pageUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}/`;
    const measure = async (context: BrowserContext) => {
      const tab = await context.newPage();
      await tab.goto(pageUrl);
      const handle = await tab.waitForFunction(() => (window as never as { __mountMs?: number; __mountError?: string }).__mountMs ?? (window as never as { __mountError?: string }).__mountError, undefined, { timeout: 20_000 });
      const value = await handle.jsonValue();
      await tab.close();
      if (typeof value !== 'number') throw new Error(`mount failed: ${String(value)}`);
      return value;
    };
    const cold: number[] = [];
    const warm: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const context = await browser.newContext();
      cold.push(await measure(context));
      warm.push(await measure(context));
      await context.close();
    }
    const html = await (await fetch(`${jsUrl}/frame/`)).text();
    const assets = [...new Set([...html.matchAll(/(?:src|href)="(\/frame\/assets\/[^"]+)"/g)].map((m) => m[1]!))];
    const files = [];
    for (const path of ['/v1/', '/frame/', ...assets]) files.push({ path, ...(await servedBytes(jsUrl, path)) });
    return { coldMs: median(cold), warmMs: median(warm), rounds: ROUNDS, files };
  } finally {
    await browser.close();
    merchant?.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The docs/benchmarks.md section. */
export function mountTable(result: MountResult): string {
  const lines = [
    `## Payment element: mount() -> ready (headless Chromium, loopback, ${result.rounds} rounds, medians)`,
    '',
    '| | Rail | Goal (issue 17) |',
    '|---|---:|---:|',
    `| cold (fresh context, empty cache) | ${result.coldMs.toFixed(0)} ms | <= 150 ms |`,
    `| warm (same context, files cached) | ${result.warmMs.toFixed(0)} ms | <= 60 ms |`,
    '',
    'Bytes the js listener sends per file (measured in the same run):',
    '',
    '| File | identity | gzip | br |',
    '|---|---:|---:|---:|',
    ...result.files.map((f) => `| \`${f.path}\` | ${f.identity} | ${f.gzip} | ${f.br} |`),
  ];
  return lines.join('\n');
}

if (process.argv[1]?.endsWith('bench/mount.ts')) {
  mountBench().then((result) => console.log(mountTable(result)), (error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
