/**
 * Whether V8's code cache serves the mount's scripts: mounts the payment element LOADS times (default 4) in one
 * Chromium profile and, from a trace of each mount, prints how each script of the runtime and the frame was compiled
 * (from V8's code cache, or parsed and compiled from source) and the mount's mount() -> ready.
 *   node --import tsx bench/code-cache.ts
 * The profile is an on-disk one, as a customer's browser has: Chromium keeps no code cache for an off-the-record
 * profile, which is what Playwright's `browser.newContext()` (and so bench/mount.ts) gives; BENCH_CODE_CACHE_PROFILE=
 * off-the-record shows that. Chromium stores a script's code cache on its second load and uses it from the third.
 * BENCH_CODE_CACHE_ARGS adds Chromium flags (space-separated). Never a test.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import * as here from '../server/src/test-support/server-process';
import { BROWSER_ARGS, startSubject } from './mount';

const LOADS = Number(process.env['BENCH_CODE_CACHE_LOADS'] ?? 4);
const OFF_THE_RECORD = process.env['BENCH_CODE_CACHE_PROFILE'] === 'off-the-record';
const EXTRA_ARGS = (process.env['BENCH_CODE_CACHE_ARGS'] ?? '').split(' ').filter(Boolean);

interface TraceEvent {
  name: string;
  args?: { data?: Record<string, unknown> };
}

/** One line per compiled script of the runtime and the frame: from the code cache, or compiled from source. */
export function describeCompiles(events: TraceEvent[]): string[] {
  return events
    .filter((event) => event.name === 'v8.compile' || event.name === 'v8.compileModule')
    .map((event) => event.args?.data ?? {})
    .filter((data) => /\/(v1|frame\/assets)\//.test(String(data['url'])))
    .map((data) => {
      const file = String(data['url']).replace(/^https?:\/\/[^/]+/, '');
      const consumed = data['consumedCacheSize'] !== undefined && data['cacheRejected'] === false;
      const how = consumed
        ? `from the code cache (${String(data['consumedCacheSize'])} B)`
        : `compiled from source${data['streamed'] ? ' (streamed)' : ''}${data['cacheRejected'] ? ', cache rejected' : ''}`;
      return `${file}: ${how}`;
    });
}

async function openProfile(): Promise<{ browser: Browser; context: BrowserContext; close(): Promise<void> }> {
  const executablePath = '/usr/bin/chromium';
  if (OFF_THE_RECORD) {
    const browser = await chromium.launch({ executablePath, args: [...BROWSER_ARGS, ...EXTRA_ARGS] });
    return { browser, context: await browser.newContext(), close: () => browser.close() };
  }
  // Playwright's persistent context has no Browser to trace with, so Chromium is started here and connected to.
  const profile = mkdtempSync(join(tmpdir(), 'rail-code-cache-'));
  const port = 9300 + Math.floor(Math.random() * 500);
  const child = spawn(executablePath, ['--headless', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), `--remote-debugging-port=${port}`, `--user-data-dir=${profile}`, ...BROWSER_ARGS, ...EXTRA_ARGS, 'about:blank'], { stdio: 'ignore' });
  for (let attempt = 0; ; attempt += 1) {
    try {
      const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
      return {
        browser,
        context: browser.contexts()[0]!,
        close: async () => {
          await browser.close();
          child.kill();
          await new Promise((resolveExit) => child.once('exit', resolveExit));
          rmSync(profile, { recursive: true, force: true });
        },
      };
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
  }
}

if (process.argv[1]?.endsWith('bench/code-cache.ts')) {
  const subject = await startSubject(here);
  const profile = await openProfile();
  const traceDir = mkdtempSync(join(tmpdir(), 'rail-code-cache-trace-'));
  const traceFile = join(traceDir, 'mount.json');
  try {
    console.log(`${OFF_THE_RECORD ? 'off-the-record' : 'on-disk'} profile${EXTRA_ARGS.length > 0 ? `, ${EXTRA_ARGS.join(' ')}` : ''}`);
    for (let load = 1; load <= LOADS; load += 1) {
      const { ms } = await subject.measure(profile.context, {
        start: (tab: Page) => profile.browser.startTracing(tab, { path: traceFile, categories: ['v8', 'disabled-by-default-v8.compile', 'devtools.timeline'] }),
        stop: () => profile.browser.stopTracing(),
      });
      const { traceEvents } = JSON.parse(readFileSync(traceFile, 'utf8')) as { traceEvents: TraceEvent[] };
      console.log(`load ${load}: mount() -> ready ${ms.toFixed(0)} ms`);
      for (const line of describeCompiles(traceEvents)) console.log(`  ${line}`);
    }
  } finally {
    await profile.close();
    await subject.stop();
    rmSync(traceDir, { recursive: true, force: true });
  }
}
