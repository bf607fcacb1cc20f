/**
 * `npm run dev` as a frontend developer uses it: the demo page on one vite server, the frame on another (its own
 * origin), the backend beside them. The frame is served from a copy of frame/ (RAIL_DEV_FRAME_ROOT), and the edits
 * go to the copy: a killed run never leaves an edited source behind, and a developer's own `npm run dev` on frame/
 * sees nothing. The built dist/ that the other specs use is not touched either.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { E2E } from '../env';
import { TEST_VPAS, fillUpi, railFrame, selectPaymentMethod } from '@rail/playwright';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGE_URL = `http://localhost:${E2E.dev.pagePort}/`;
/** Beside frame/, so the copy's `../../protocol` imports resolve; git ignores it. */
const FRAME_COPY = resolve(ROOT, `.e2e-frame-dev-${E2E.dev.framePort}`);

test.describe.configure({ mode: 'serial', timeout: 120_000 });

let dev: ChildProcess | undefined;
let output = '';

test.beforeAll(async () => {
  test.setTimeout(120_000);
  rmSync(FRAME_COPY, { recursive: true, force: true });
  cpSync(resolve(ROOT, 'frame'), FRAME_COPY, { recursive: true });
  dev = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      RAIL_DEV_PAGE_PORT: String(E2E.dev.pagePort),
      RAIL_DEV_FRAME_PORT: String(E2E.dev.framePort),
      RAIL_PORT: String(E2E.dev.apiPort),
      RAIL_JS_PORT: String(E2E.dev.jsPort),
      RAIL_DEV_FRAME_ROOT: FRAME_COPY,
      // vite's file watcher (chokidar) on inotify missed every write after the first now and then in CI, with the
      // other specs loading the machine (its output showed no update at all for 30 s, the edit written again at 5 s
      // included): polling sees each write. What the spec checks, HMR over two origins, is the same either way.
      CHOKIDAR_USEPOLLING: '1',
      RAIL_DATA_DIR: mkdtempSync(join(tmpdir(), 'rail-dev-e2e-')),
      RAIL_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  dev.stdout?.on('data', (chunk) => (output += chunk));
  dev.stderr?.on('data', (chunk) => (output += chunk));
  await expect.poll(() => output, { timeout: 100_000, message: 'npm run dev prints its banner' }).toContain('Ctrl-C stops everything.');
});

// What `npm run dev` printed (vite's reloads and updates among it) goes into the log of a failed test: the i18n test
// has failed with the frame never showing the edited label, and only this output can tell a missed write from a
// missed reload.
test.afterEach(async ({}, testInfo) => {
  if (testInfo.status !== testInfo.expectedStatus) console.log(`npm run dev printed (last 4000 characters):\n${output.slice(-4000)}`);
});

test.afterAll(async () => {
  if (dev && dev.exitCode === null) {
    const exited = new Promise((done) => dev!.once('exit', done));
    dev.kill('SIGTERM');
    await exited;
  }
  rmSync(FRAME_COPY, { recursive: true, force: true });
});

/**
 * Replaces `from` with `to` in a file of the frame copy (`path` relative to frame/) for the duration of `run`, which
 * may write the edit again (`rewrite`, with a comment that makes the file's text new).
 */
async function withEdit(path: string, from: string, to: string, run: (rewrite: () => void) => Promise<void>): Promise<void> {
  const file = resolve(FRAME_COPY, path);
  const original = readFileSync(file, 'utf8');
  expect(original, `${path} still contains the text the spec edits`).toContain(from);
  writeFileSync(file, original.replace(from, to));
  let writes = 1;
  const rewrite = () => writeFileSync(file, `${original.replace(from, to)}\n// written again (${(writes += 1)})\n`);
  try {
    await run(rewrite);
  } finally {
    writeFileSync(file, original);
  }
}

async function openDemo(page: Page) {
  await page.goto(PAGE_URL);
  const frame = railFrame(page);
  await expect(page.locator('#pay')).toBeEnabled({ timeout: 30_000 });
  await page.evaluate(() => ((window as never as { __pageState: string }).__pageState = 'kept'));
  return frame;
}

const pageState = (page: Page) => page.evaluate(() => (window as never as { __pageState?: string }).__pageState);

test('a frame component edit hot-swaps inside the iframe: the merchant page and the typed value stay', async ({ page }) => {
  const frame = await openDemo(page);
  await selectPaymentMethod(page, 'UPI');
  await fillUpi(page, TEST_VPAS.success);
  await withEdit('src/components/text-field-form.tsx', '{messages[label]}', "{messages[label] + ' (edited)'}", async () => {
    await expect(frame.getByText('UPI ID (edited)')).toBeVisible({ timeout: 15_000 });
    await expect(frame.locator('#rail-upi-vpa')).toHaveValue(TEST_VPAS.success);
    expect(await pageState(page)).toBe('kept');
  });
});

test('a plain frame module edit (i18n) reloads only the frame, which reconnects and still pays', async ({ page }) => {
  const frame = await openDemo(page);
  await withEdit('src/i18n.ts', "upiLabel: 'UPI ID',", "upiLabel: 'UPI ID (reloaded)',", async (rewrite) => {
    // The reloaded frame starts on its first method again, and one edit may reload it more than once (vite's
    // watcher can see one write as two changes). Once in about six runs the edited field never came after UPI was
    // picked, as a later reload would make it: so pick UPI and type until the field holds the value, each step
    // bounded so that a reload in between is retried. In CI vite has also missed the write now and then (its output
    // showed no update for i18n.ts, and the frame kept the old label for 30 s): a frame still showing the old label
    // 5 s after the last write gets the edit written again.
    const field = frame.getByLabel('UPI ID (reloaded)', { exact: true });
    const oldField = frame.getByLabel('UPI ID', { exact: true });
    let writtenAt = Date.now();
    await expect(async () => {
      if (Date.now() - writtenAt > 5_000 && (await oldField.isVisible())) {
        rewrite();
        writtenAt = Date.now();
      }
      await selectPaymentMethod(page, 'UPI');
      await field.click({ timeout: 1_000 });
      await field.clear({ timeout: 1_000 });
      await field.pressSequentially(TEST_VPAS.success, { timeout: 2_000 });
      await expect(field).toHaveValue(TEST_VPAS.success, { timeout: 1_000 });
    }).toPass({ timeout: 30_000 });
    expect(await pageState(page)).toBe('kept');
    await page.locator('#pay').click();
    await expect(page.locator('#result')).toHaveText('succeeded', { timeout: 20_000 });
  });
});
