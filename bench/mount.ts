/**
 * Mount -> ready of the payment element in headless Chromium (/usr/bin/chromium when present), against the real
 * server process on loopback (dist/server/main.js, as production runs it): the time from `element.mount()` to its
 * `ready` event, cold (a fresh browser context: empty cache) and warm (the same context again: runtime and frame
 * files cached), ROUNDS rounds each after one discarded warm-up round, medians.
 * Also where the time goes (the frame's own Navigation and Resource Timing and first paint, as ms from mount()),
 * the bytes the js listener sends for each file (identity, gzip, br) and the loader's gzip -9 size.
 * Part of `npm run bench`; never a test.
 *
 * Before/after: BENCH_MOUNT_BASELINE=<another built checkout> (npm run build there) measures that checkout too,
 * in the same run, rounds interleaved (ABBA), so both see the same machine load; each round's figures go to stderr:
 *   BENCH_MOUNT_BASELINE=/tmp/rail-main node --import tsx bench/mount.ts
 * BENCH_MOUNT_LATENCY_MS=40 adds that latency to every request (Chromium network emulation), as a deployment's
 * round trips would; loopback alone hides what overlapping requests saves.
 * BENCH_MOUNT_PAGE_HOST=localhost serves the merchant page from another site than the frame (see PAGE_HOST).
 * BENCH_MOUNT_TRACE=<file.json> also records a Chromium performance trace of one more warm mount of this checkout
 * (BENCH_MOUNT_TRACE_KIND=cold: of a cold one)
 * (devtools.timeline, v8, blink, loading categories) into that file: open it in DevTools' Performance panel, or
 * summarize it with `node --import tsx bench/mount-trace.ts <file.json>`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import * as here from '../server/src/test-support/server-process';

const ROUNDS = Number(process.env['BENCH_MOUNT_ROUNDS'] ?? 7);
const BASELINE = process.env['BENCH_MOUNT_BASELINE'];
/** Added to every request by Chromium's network emulation (0: loopback as is); a deployment has real round trips. */
const LATENCY_MS = Number(process.env['BENCH_MOUNT_LATENCY_MS'] ?? 0);
/**
 * Debian's Chromium runs headless as the full browser, whose omnibox popup (a WebUI page in a renderer of its own)
 * loads some 400 files for every new tab: 250 ms of CPU on a 2-core machine, during the mount being measured. A
 * customer's browser has its tabs open before a checkout mounts, so the bench turns it off; the rest are the e2e
 * suite's flags (no background requests to hosts this network refuses).
 */
export const BROWSER_ARGS = [
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/**
 * The merchant page's host. 127.0.0.1, the frame's own host on another port, is the same site: page and frame share
 * one renderer process and its main thread. `localhost` makes the frame cross-site, as on a merchant's own domain:
 * it gets a renderer process of its own (whose start the mount then pays), running beside the page's.
 */
const PAGE_HOST = process.env['BENCH_MOUNT_PAGE_HOST'] ?? '127.0.0.1';
const TRACE_FILE = process.env['BENCH_MOUNT_TRACE'];
/** `cold` traces the cold mount (a fresh context) instead of the warm one. */
const TRACE_COLD = process.env['BENCH_MOUNT_TRACE_KIND'] === 'cold';
/** What the trace records: the timeline (tasks, parse, layout, paint), V8 compile and code cache, loading. */
export const TRACE_CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.frame',
  'v8',
  'v8.execute',
  'disabled-by-default-v8.compile',
  'blink',
  'blink.user_timing',
  'loading',
  'netlog',
  'disabled-by-default-netlog',
  'toplevel',
  'fonts',
  'disabled-by-default-blink.debug.layout',
  'disabled-by-default-fonts',
];

/**
 * Where one mount's time went, in ms from `mount()` (medians over the rounds), read from the frame's own
 * Navigation and Resource Timing entries and its first paint.
 */
export interface MountPhases {
  /** The frame document has arrived (its response ended). */
  frameDocument: number;
  /** The last of the frame's scripts (boot and app chunks) has arrived. */
  scripts: number;
  /** The frame's load request (methods with the payment) was sent, and its answer ended. */
  apiStart: number;
  apiEnd: number;
  /** The frame's first paint before `ready` reached the page (the skeleton); NaN when the form itself was painted first. */
  firstPaint: number;
  /** The frame's marks: its app chunk ran, the penpal handshake finished, the methods were in (just before `ready`). */
  appStart: number;
  connected: number;
  methods: number;
}

export interface MountResult {
  coldMs: number;
  warmMs: number;
  coldPhases: MountPhases;
  warmPhases: MountPhases;
  rounds: number;
  files: { path: string; identity: number; gzip: number; br: number }[];
  /** gzip -9 of loader/dist/index.js (an npm package the merchant bundles; not served by the listener). */
  loaderGzip: number;
  /** Emulated latency added to every request (BENCH_MOUNT_LATENCY_MS). */
  latencyMs: number;
  /** The merchant page's host (BENCH_MOUNT_PAGE_HOST): 127.0.0.1 is the frame's own site. */
  pageHost: string;
  /** 1-minute load average when the run started (the mount path is CPU-bound: a busy machine slows every figure). */
  loadAverage: number;
  /** The same measurement of BENCH_MOUNT_BASELINE, rounds interleaved with this checkout's. */
  baseline?: { root: string; coldMs: number; warmMs: number };
  /** The floor (startFloorSubject): a minimal cross-origin iframe that posts `ready`, rounds interleaved with Rail's. */
  floor: { coldMs: number; warmMs: number };
}

type ServerProcessModule = typeof here;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/**
 * The merchant page: loads /v1/ and creates the element; `window.__mount()` mounts it and resolves with the ms from
 * mount() to ready (or the loaderror code). The bench calls it once the page has loaded and waits on the promise:
 * nothing of the bench runs in the page while it mounts (a polling waitForFunction would run every frame on the
 * renderer thread the frame shares).
 */
const page = (jsUrl: string, clientSecret: string, publishableKey: string) => `<!doctype html><meta charset="utf-8"><title>mount bench</title>
<div id="payment"></div>
<script src="${jsUrl}/v1/"></script>
<script>
  const rail = Rail(${JSON.stringify(publishableKey)});
  const element = rail.elements({ clientSecret: ${JSON.stringify(clientSecret)} }).create('payment');
  window.__mount = () => new Promise((resolve) => {
    element.on('ready', () => resolve(performance.mark('bench:ready').startTime - start));
    element.on('loaderror', (event) => resolve(event.error.code));
    const start = performance.mark('bench:mount').startTime;
    window.__mountEpoch = performance.timeOrigin + start;
    element.mount('#payment');
  });
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
export interface Measurement {
  ms: number;
  phases: MountPhases;
}

export interface Subject {
  jsUrl: string;
  /** `trace` starts with the new tab before it loads the merchant page and stops once `ready` has come. */
  measure(context: BrowserContext, trace?: { start(tab: Page): Promise<void>; stop(): Promise<unknown> }): Promise<Measurement>;
  stop(): Promise<void>;
}

export async function startSubject(serverProcess: ServerProcessModule): Promise<Subject> {
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
  const pageUrl = `http://${PAGE_HOST}:${(merchant.address() as AddressInfo).port}/`;
  return {
    jsUrl,
    measure: async (context, trace) => {
      const tab = await context.newPage();
      await trace?.start(tab);
      if (LATENCY_MS > 0) {
        const cdp = await context.newCDPSession(tab);
        await cdp.send('Network.enable');
        await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: LATENCY_MS, downloadThroughput: -1, uploadThroughput: -1 });
      }
      await tab.goto(pageUrl);
      let timer: NodeJS.Timeout | undefined;
      const value = await Promise.race([
        tab.evaluate('window.__mount()') as Promise<number | string>,
        new Promise<string>((resolveTimeout) => (timer = setTimeout(() => resolveTimeout('no ready within 20 s'), 20_000))),
      ]).finally(() => clearTimeout(timer));
      await trace?.stop();
      if (typeof value !== 'number') {
        await tab.close();
        throw new Error(`mount failed: ${String(value)}`);
      }
      const mountEpoch = await tab.evaluate(() => (window as never as { __mountEpoch: number }).__mountEpoch);
      const frame = tab.frames().find((candidate) => candidate.url().startsWith(`${jsUrl}/frame/`));
      const timing = await frame!.evaluate(() => {
        const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
        const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
        const api = resources.find((entry) => entry.name.includes('/account/payment_methods'));
        return {
          origin: performance.timeOrigin,
          document: navigation.responseEnd,
          scripts: Math.max(...resources.filter((entry) => entry.name.endsWith('.js')).map((entry) => entry.responseEnd)),
          apiStart: api?.startTime ?? NaN,
          apiEnd: api?.responseEnd ?? NaN,
          firstPaint: performance.getEntriesByName('first-paint')[0]?.startTime ?? NaN,
          appStart: performance.getEntriesByName('rail:app-start')[0]?.startTime ?? NaN,
          connected: performance.getEntriesByName('rail:connected')[0]?.startTime ?? NaN,
          methods: performance.getEntriesByName('rail:methods')[0]?.startTime ?? NaN,
        };
      });
      await tab.close();
      const since = (frameTime: number) => timing.origin + frameTime - mountEpoch;
      return {
        ms: value,
        phases: {
          frameDocument: since(timing.document),
          scripts: since(timing.scripts),
          apiStart: since(timing.apiStart),
          apiEnd: since(timing.apiEnd),
          firstPaint: since(timing.firstPaint),
          appStart: since(timing.appStart),
          connected: since(timing.connected),
          methods: since(timing.methods),
        },
      };
    },
    stop: async () => {
      merchant.close();
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A minimal frame document: an inline script that tells the page it is there, as the frame's `ready` does. */
const FLOOR_FRAME = '<!doctype html><meta charset="utf-8"><title>floor</title><script>parent.postMessage("floor:ready", "*")</script>';

/**
 * The floor under any hosted frame on this machine and browser, measured like Rail's mount: the page inserts an
 * iframe of FLOOR_FRAME, served from another port (another origin of the same site, as the js listener is) with the
 * headers of `/frame/` (`no-cache` and an ETag, so a warm mount revalidates it: a 304), and times insertion to the
 * frame's message. Committing a new document in an iframe costs a browser the same whatever the document holds;
 * Rail's mount over this floor is what Rail's own frame costs, and it travels between machines where the
 * milliseconds do not (a Chromium twice as slow on one machine kind moved both alike).
 */
export async function startFloorSubject(): Promise<Subject> {
  const etag = '"floor-1"';
  const frameServer: Server = createServer((request, response) => {
    if (request.headers['if-none-match'] === etag) {
      response.writeHead(304, { etag, 'cache-control': 'no-cache' });
      response.end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', etag });
    response.end(FLOOR_FRAME);
  });
  await new Promise<void>((resolveListen) => frameServer.listen(0, '127.0.0.1', resolveListen));
  const frameUrl = `http://127.0.0.1:${(frameServer.address() as AddressInfo).port}/frame/`;
  const pageServer: Server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(`<!doctype html><meta charset="utf-8"><title>floor bench</title>
<div id="payment"></div>
<script>
  window.__mount = () => new Promise((resolve) => {
    addEventListener('message', (event) => {
      if (event.data === 'floor:ready') resolve(performance.now() - start);
    });
    const start = performance.now();
    const frame = document.createElement('iframe');
    frame.src = ${JSON.stringify(frameUrl)};
    document.getElementById('payment').appendChild(frame);
  });
</script>`);
  });
  await new Promise<void>((resolveListen) => pageServer.listen(0, '127.0.0.1', resolveListen));
  const pageUrl = `http://${PAGE_HOST}:${(pageServer.address() as AddressInfo).port}/`;
  const none: MountPhases = { frameDocument: NaN, scripts: NaN, apiStart: NaN, apiEnd: NaN, firstPaint: NaN, appStart: NaN, connected: NaN, methods: NaN };
  return {
    jsUrl: frameUrl,
    measure: async (context) => {
      const tab = await context.newPage();
      try {
        await tab.goto(pageUrl);
        return { ms: (await tab.evaluate('window.__mount()')) as number, phases: none };
      } finally {
        await tab.close();
      }
    },
    stop: async () => {
      frameServer.close();
      pageServer.close();
    },
  };
}

/** Cold then warm in one fresh context. */
async function round(browser: Browser, subject: Subject): Promise<{ cold: Measurement; warm: Measurement }> {
  const context = await browser.newContext();
  try {
    return { cold: await subject.measure(context), warm: await subject.measure(context) };
  } finally {
    await context.close();
  }
}

export async function mountBench(): Promise<MountResult> {
  const loadAverage = loadavg()[0] ?? NaN;
  const browser = await chromium.launch({ executablePath: existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined, args: BROWSER_ARGS });
  const subjects: Subject[] = [];
  try {
    const current = await startSubject(here);
    subjects.push(current);
    const floor = await startFloorSubject();
    subjects.push(floor);
    let baseline: Subject | undefined;
    if (BASELINE !== undefined) {
      const module = (await import(resolve(BASELINE, 'server/src/test-support/server-process.ts'))) as ServerProcessModule;
      baseline = await startSubject(module);
      subjects.push(baseline);
    }
    // One discarded round each: the server's first requests and the browser's first contexts are slower.
    for (const subject of subjects) await round(browser, subject);
    const times = subjects.map(() => ({ cold: [] as Measurement[], warm: [] as Measurement[] }));
    for (let index = 0; index < ROUNDS; index += 1) {
      // ABBA: neither checkout always goes first.
      const order = index % 2 === 0 ? subjects.map((_, i) => i) : subjects.map((_, i) => i).reverse();
      for (const i of order) {
        const { cold, warm } = await round(browser, subjects[i]!);
        times[i]!.cold.push(cold);
        times[i]!.warm.push(warm);
      }
      // Every round's figures, so an A/B can be read round by round and not only by its medians.
      console.error(`round ${index + 1}: cold ${times.map((t) => t.cold[index]!.ms.toFixed(0)).join(' / ')} ms, warm ${times.map((t) => t.warm[index]!.ms.toFixed(0)).join(' / ')} ms (this checkout / floor${baseline ? ' / baseline' : ''})`);
    }
    if (TRACE_FILE !== undefined) await traceMount(browser, current, TRACE_FILE);
    const jsUrl = current.jsUrl;
    const html = await (await fetch(`${jsUrl}/frame/`)).text();
    const assets = [...new Set([...html.matchAll(/(?:src|href)="(\/frame\/assets\/[^"]+)"/g)].map((m) => m[1]!))];
    const files = [];
    for (const path of ['/v1/', '/frame/', ...assets]) files.push({ path, ...(await servedBytes(jsUrl, path)) });
    const loaderGzip = gzipSync(readFileSync(resolve(here.ROOT, 'loader/dist/index.js')), { level: 9 }).length;
    const ms = (measurements: Measurement[]) => median(measurements.map((measurement) => measurement.ms));
    return {
      coldMs: ms(times[0]!.cold),
      warmMs: ms(times[0]!.warm),
      coldPhases: medianPhases(times[0]!.cold),
      warmPhases: medianPhases(times[0]!.warm),
      rounds: ROUNDS,
      files,
      loaderGzip,
      latencyMs: LATENCY_MS,
      pageHost: PAGE_HOST,
      loadAverage,
      floor: { coldMs: ms(times[1]!.cold), warmMs: ms(times[1]!.warm) },
      ...(baseline ? { baseline: { root: BASELINE!, coldMs: ms(times[2]!.cold), warmMs: ms(times[2]!.warm) } } : {}),
    };
  } finally {
    await browser.close();
    for (const subject of subjects) await subject.stop();
  }
}

/** One mount recorded in a Chromium trace: the warm one after a cold one fills the cache, or the cold one. */
async function traceMount(browser: Browser, subject: Subject, file: string): Promise<void> {
  const context = await browser.newContext();
  const trace = {
    start: (tab: Page) => browser.startTracing(tab, { path: file, screenshots: false, categories: TRACE_CATEGORIES }),
    stop: () => browser.stopTracing(),
  };
  try {
    if (TRACE_COLD) await subject.measure(context, trace);
    else {
      await subject.measure(context);
      await subject.measure(context, trace);
    }
  } finally {
    await context.close();
  }
}

function medianPhases(measurements: Measurement[]): MountPhases {
  const phase = (name: keyof MountPhases) => median(measurements.map((measurement) => measurement.phases[name]));
  const names = ['frameDocument', 'scripts', 'apiStart', 'apiEnd', 'firstPaint', 'appStart', 'connected', 'methods'] as const;
  return Object.fromEntries(names.map((name) => [name, phase(name)])) as unknown as MountPhases;
}

/** The docs/benchmarks.md section. */
export function mountTable(result: MountResult): string {
  const lines = [
    `## Payment element: mount() -> ready (headless Chromium, loopback${result.latencyMs > 0 ? ` + ${result.latencyMs} ms emulated latency per request` : ''}${result.pageHost === '127.0.0.1' ? '' : `, the page on ${result.pageHost}: a cross-site frame`}, ${result.rounds} rounds, medians)`,
    '',
    `| | Rail | floor: a bare iframe | Rail / floor |${result.baseline ? ` Baseline (\`${result.baseline.root}\`) |` : ''} Goal (issue 17) |`,
    `|---|---:|---:|---:|${result.baseline ? '---:|' : ''}---:|`,
    ...(
      [
        ['cold (fresh context, empty cache)', result.coldMs, result.floor.coldMs, result.baseline?.coldMs, '<= 150 ms'],
        ['warm (same context, files cached)', result.warmMs, result.floor.warmMs, result.baseline?.warmMs, '<= 60 ms'],
      ] as const
    ).map(
      ([label, rail, floor, baseline, goal]) =>
        `| ${label} | ${rail.toFixed(0)} ms | ${floor.toFixed(0)} ms | ${(rail / floor).toFixed(1)}x |${result.baseline ? ` ${baseline!.toFixed(0)} ms |` : ''} ${goal} |`,
    ),
    '',
    'The floor is the same page inserting an iframe of a minimal document from another port (the headers of `/frame/`: `no-cache`, an ETag) whose inline script posts `ready` to the page, in rounds interleaved with Rail\'s: what committing any new document in an iframe costs this browser on this machine, under which no hosted frame can mount.',
    '',
    `Load average (1 min) at the start: ${result.loadAverage.toFixed(1)}. The path is CPU-bound (parse, render, the penpal handshake): on a busy machine every figure grows.`,
    '',
    'Where the time goes (this build; ms from `mount()`, medians; from the frame\'s Navigation and Resource Timing and its first paint):',
    '',
    '| step | cold | warm |',
    '|---|---:|---:|',
    ...(
      [
        ['the frame document has arrived', 'frameDocument'],
        ['its scripts (boot and app chunks) have arrived', 'scripts'],
        ['the load request (methods with the payment) is sent', 'apiStart'],
        ['its answer has arrived', 'apiEnd'],
        ['the app chunk runs (mark rail:app-start)', 'appStart'],
        ['first paint of the frame before ready (the skeleton; NaN: none, the form was the first)', 'firstPaint'],
        ['the penpal handshake with the page is done (rail:connected)', 'connected'],
        ['the methods are in, `ready` is sent (rail:methods)', 'methods'],
      ] as const
    ).map(([label, key]) => `| ${label} | ${result.coldPhases[key].toFixed(0)} | ${result.warmPhases[key].toFixed(0)} |`),
    `| \`ready\` reaches the page | ${result.coldMs.toFixed(0)} | ${result.warmMs.toFixed(0)} |`,
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
