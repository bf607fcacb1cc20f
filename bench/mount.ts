/**
 * Mount -> ready of the payment element in headless Chromium (/usr/bin/chromium when present), against the real
 * server process on loopback (dist/server/main.js, as production runs it): the time from `element.mount()` to its
 * `ready` event, cold (a fresh browser context: empty cache) and warm (the same context again: runtime and frame
 * files cached), ROUNDS rounds each after one discarded warm-up round, medians.
 * Also the bytes the js listener sends for each file (identity, gzip, br) and the loader's gzip -9 size.
 * Part of `npm run bench`; never a test.
 *
 * Before/after: BENCH_MOUNT_BASELINE=<another built checkout> (npm run build there) measures that checkout too,
 * in the same run, rounds interleaved (ABBA), so both see the same machine load:
 *   BENCH_MOUNT_BASELINE=/tmp/rail-main node --import tsx bench/mount.ts
 * BENCH_MOUNT_LATENCY_MS=40 adds that latency to every request (Chromium network emulation), as a deployment's
 * round trips would; loopback alone hides what overlapping requests saves.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext } from '@playwright/test';
import * as here from '../server/src/test-support/server-process';

const ROUNDS = Number(process.env['BENCH_MOUNT_ROUNDS'] ?? 7);
const BASELINE = process.env['BENCH_MOUNT_BASELINE'];
/** Added to every request by Chromium's network emulation (0: loopback as is); a deployment has real round trips. */
const LATENCY_MS = Number(process.env['BENCH_MOUNT_LATENCY_MS'] ?? 0);

export interface MountResult {
  coldMs: number;
  warmMs: number;
  rounds: number;
  files: { path: string; identity: number; gzip: number; br: number }[];
  /** gzip -9 of loader/dist/index.js (an npm package the merchant bundles; not served by the listener). */
  loaderGzip: number;
  /** Emulated latency added to every request (BENCH_MOUNT_LATENCY_MS). */
  latencyMs: number;
  /** 1-minute load average when the run started (the mount path is CPU-bound: a busy machine slows every figure). */
  loadAverage: number;
  /** The same measurement of BENCH_MOUNT_BASELINE, rounds interleaved with this checkout's. */
  baseline?: { root: string; coldMs: number; warmMs: number };
}

type ServerProcessModule = typeof here;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** The merchant page: loads /v1/, mounts, and reports mount() -> ready in window.__mountMs. */
const page = (jsUrl: string, clientSecret: string, publishableKey: string) => `<!doctype html><meta charset="utf-8"><title>mount bench</title>
<div id="payment"></div>
<script src="${jsUrl}/v1/"></script>
<script>
  const rail = Rail(${JSON.stringify(publishableKey)});
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

/** One checkout's server and merchant page, measured by `measure` in a given browser context. */
interface Subject {
  jsUrl: string;
  measure(context: BrowserContext): Promise<number>;
  stop(): Promise<void>;
}

async function startSubject(serverProcess: ServerProcessModule): Promise<Subject> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rail-bench-mount-'));
  const server = await serverProcess.startServer({ dataDir, logLevel: 'error', entry: 'compiled' });
  const jsUrl = /pinned runtime\s+(http:\/\/[^/\s]+)\/v1\//.exec(server.output())?.[1];
  if (!jsUrl) {
    await server.stop();
    throw new Error(`no js_url in the server banner:\n${server.output()}`);
  }
  const merchant: Server = createServer(async (_request, response) => {
    const created = await fetch(`${server.baseUrl}/payments`, {
      method: 'POST',
      headers: { 'api-key': serverProcess.FIXED_SECRET_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 10000, currency: 'INR' }),
    });
    const { client_secret } = (await created.json()) as { client_secret: string };
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(page(jsUrl, client_secret, serverProcess.FIXED_PUBLISHABLE_KEY));
  });
  await new Promise<void>((resolveListen) => merchant.listen(0, '127.0.0.1', resolveListen));
  const pageUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}/`;
  return {
    jsUrl,
    measure: async (context) => {
      const tab = await context.newPage();
      if (LATENCY_MS > 0) {
        const cdp = await context.newCDPSession(tab);
        await cdp.send('Network.enable');
        await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: LATENCY_MS, downloadThroughput: -1, uploadThroughput: -1 });
      }
      await tab.goto(pageUrl);
      const handle = await tab.waitForFunction(() => (window as never as { __mountMs?: number; __mountError?: string }).__mountMs ?? (window as never as { __mountError?: string }).__mountError, undefined, { timeout: 20_000 });
      const value = await handle.jsonValue();
      await tab.close();
      if (typeof value !== 'number') throw new Error(`mount failed: ${String(value)}`);
      return value;
    },
    stop: async () => {
      merchant.close();
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Cold then warm in one fresh context. */
async function round(browser: Browser, subject: Subject): Promise<{ cold: number; warm: number }> {
  const context = await browser.newContext();
  try {
    return { cold: await subject.measure(context), warm: await subject.measure(context) };
  } finally {
    await context.close();
  }
}

export async function mountBench(): Promise<MountResult> {
  const loadAverage = loadavg()[0] ?? NaN;
  const browser = await chromium.launch({ executablePath: existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined });
  const subjects: Subject[] = [];
  try {
    const current = await startSubject(here);
    subjects.push(current);
    let baseline: Subject | undefined;
    if (BASELINE !== undefined) {
      const module = (await import(resolve(BASELINE, 'server/src/test-support/server-process.ts'))) as ServerProcessModule;
      baseline = await startSubject(module);
      subjects.push(baseline);
    }
    // One discarded round each: the server's first requests and the browser's first contexts are slower.
    for (const subject of subjects) await round(browser, subject);
    const times = subjects.map(() => ({ cold: [] as number[], warm: [] as number[] }));
    for (let index = 0; index < ROUNDS; index += 1) {
      // ABBA: neither checkout always goes first.
      const order = index % 2 === 0 ? subjects.map((_, i) => i) : subjects.map((_, i) => i).reverse();
      for (const i of order) {
        const { cold, warm } = await round(browser, subjects[i]!);
        times[i]!.cold.push(cold);
        times[i]!.warm.push(warm);
      }
    }
    const jsUrl = current.jsUrl;
    const html = await (await fetch(`${jsUrl}/frame/`)).text();
    const assets = [...new Set([...html.matchAll(/(?:src|href)="(\/frame\/assets\/[^"]+)"/g)].map((m) => m[1]!))];
    const files = [];
    for (const path of ['/v1/', '/frame/', ...assets]) files.push({ path, ...(await servedBytes(jsUrl, path)) });
    const loaderGzip = gzipSync(readFileSync(resolve(here.ROOT, 'loader/dist/index.js')), { level: 9 }).length;
    return {
      coldMs: median(times[0]!.cold),
      warmMs: median(times[0]!.warm),
      rounds: ROUNDS,
      files,
      loaderGzip,
      latencyMs: LATENCY_MS,
      loadAverage,
      ...(baseline ? { baseline: { root: BASELINE!, coldMs: median(times[1]!.cold), warmMs: median(times[1]!.warm) } } : {}),
    };
  } finally {
    await browser.close();
    for (const subject of subjects) await subject.stop();
  }
}

/** The docs/benchmarks.md section. */
export function mountTable(result: MountResult): string {
  const lines = [
    `## Payment element: mount() -> ready (headless Chromium, loopback${result.latencyMs > 0 ? ` + ${result.latencyMs} ms emulated latency per request` : ''}, ${result.rounds} rounds, medians)`,
    '',
    ...(result.baseline
      ? [
          `| | Rail | Baseline (\`${result.baseline.root}\`, rounds interleaved) | Goal (issue 17) |`,
          '|---|---:|---:|---:|',
          `| cold (fresh context, empty cache) | ${result.coldMs.toFixed(0)} ms | ${result.baseline.coldMs.toFixed(0)} ms | <= 150 ms |`,
          `| warm (same context, files cached) | ${result.warmMs.toFixed(0)} ms | ${result.baseline.warmMs.toFixed(0)} ms | <= 60 ms |`,
        ]
      : [
          '| | Rail | Goal (issue 17) |',
          '|---|---:|---:|',
          `| cold (fresh context, empty cache) | ${result.coldMs.toFixed(0)} ms | <= 150 ms |`,
          `| warm (same context, files cached) | ${result.warmMs.toFixed(0)} ms | <= 60 ms |`,
        ]),
    '',
    `Load average (1 min) at the start: ${result.loadAverage.toFixed(1)}. The path is CPU-bound (parse, render, the penpal handshake): on a busy machine every figure grows.`,
    '',
    'Bytes the js listener sends per file (measured in the same run):',
    '',
    '| File | identity | gzip | br |',
    '|---|---:|---:|---:|',
    ...result.files.map((f) => `| \`${f.path}\` | ${f.identity} | ${f.gzip} | ${f.br} |`),
    '',
    `The npm loader (\`loader/dist/index.js\`, bundled by the merchant, not served): ${result.loaderGzip} B gzip -9 (goal <= 1024 B).`,
  ];
  return lines.join('\n');
}

if (process.argv[1]?.endsWith('bench/mount.ts')) {
  mountBench().then((result) => console.log(mountTable(result)), (error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
