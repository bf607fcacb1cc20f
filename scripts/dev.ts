/**
 * `npm run dev`: the demo checkout for frontend work, with vite HMR for the frame and the runtime.
 *
 *   http://localhost:5173/        demo merchant page (vite; the runtime is loaded from runtime/src as a module)
 *   http://localhost:5174/frame/  hosted frame (vite; Preact HMR), its own origin as in production
 *   http://127.0.0.1:8080         API (server/src/main.ts, test mode, fixed dev keys; /demo/payments proxied)
 *
 * Editing a frame component hot-swaps it; editing another frame module reloads only the frame (vite.config.ts,
 * reloadFrameOnModuleEdit); editing runtime/src reloads the demo page (the runtime has no HMR boundary). The
 * backend is told that js_url is the frame's vite origin, so the vault accepts the frame's calls.
 * Ports: RAIL_DEV_PAGE_PORT, RAIL_DEV_FRAME_PORT, RAIL_PORT (API), RAIL_JS_PORT (the backend's own js listener).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type Plugin, type ViteDevServer } from 'vite';
import { demoKey } from '../server/src/core/accounts/ensure-demo-account';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const PAGE_PORT = Number(process.env.RAIL_DEV_PAGE_PORT ?? 5173);
const FRAME_PORT = Number(process.env.RAIL_DEV_FRAME_PORT ?? 5174);
const API_PORT = Number(process.env.RAIL_PORT ?? 8080);
const JS_PORT = Number(process.env.RAIL_JS_PORT ?? 8081);
const API_URL = `http://127.0.0.1:${API_PORT}`;
const FRAME_ORIGIN = `http://localhost:${FRAME_PORT}`;
const PAGE_ORIGIN = `http://localhost:${PAGE_PORT}`;
/** Fixed test-mode keys of the dev account (test mode only; never valid anywhere else). */
const DEV_SECRET_KEY = process.env.RAIL_TEST_SECRET_KEY ?? 'rail_full_test_devSecretKey0000000000000000000000001';
const DEV_PUBLISHABLE_KEY = process.env.RAIL_TEST_PUBLISHABLE_KEY ?? 'rail_open_test_devPublishableKey00000000000000000001';
const ACCOUNT_CONFIG = process.env.RAIL_ACCOUNT_CONFIG ?? 'e2e/account-config.json';
/**
 * The frame's source folder (a sibling of frame/, so its `../../protocol` imports resolve). e2e/tests/dev-hmr.spec.ts
 * points it at a copy, so that its edits never touch frame/.
 */
const FRAME_ROOT = resolve(ROOT, process.env.RAIL_DEV_FRAME_ROOT ?? 'frame');

/** Serves demo/index.html with the runtime as a module from runtime/src and the demo account's key filled in. */
function demoPage(): Plugin {
  return {
    name: 'rail-dev-demo-page',
    transformIndexHtml(html) {
      return (
        html
          .replaceAll('__RAIL_PUBLISHABLE_KEY__', demoKey(DEV_SECRET_KEY, 'open'))
          .replace(
            /<script src="__RAIL_JS_URL__\/v1\/"><\/script>/,
            `<script>window.__RAIL_DEV__ = ${JSON.stringify({ frameOrigin: FRAME_ORIGIN, apiBaseUrl: API_URL })};</script>\n` +
              `    <script type="module" src="/@fs${resolve(ROOT, 'runtime/src/index.ts')}"></script>`,
          )
          // Module scripts run in document order, so the page's own script must be one too to see window.Rail.
          .replace(/<script>(\s*\(async function)/g, '<script type="module">$1')
      );
    },
  };
}

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

async function main(): Promise<void> {
  const children: ChildProcess[] = [];
  const servers: ViteDevServer[] = [];
  let stopping = false;
  const stop = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
    const exited = running.map((child) => new Promise((done) => child.once('exit', done)));
    for (const child of running) child.kill('SIGTERM');
    // A vite server with a browser still connected can keep close() pending; the process ends either way, but only
    // once the backend has let go of its ports (or had 5 s to).
    await Promise.race([Promise.all([...exited, ...servers.map((server) => server.close())]), new Promise((done) => setTimeout(done, 5000))]);
    process.exit(code);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());

  try {
    const backend = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        RAIL_HOST: '127.0.0.1',
        RAIL_PORT: String(API_PORT),
        RAIL_JS_PORT: String(JS_PORT),
        RAIL_PUBLIC_JS_URL: FRAME_ORIGIN,
        RAIL_DATA_DIR: process.env.RAIL_DATA_DIR ?? resolve(ROOT, '.rail-data/dev'),
        RAIL_TEST_SECRET_KEY: DEV_SECRET_KEY,
        RAIL_TEST_PUBLISHABLE_KEY: DEV_PUBLISHABLE_KEY,
        ...(existsSync(resolve(ROOT, ACCOUNT_CONFIG)) ? { RAIL_ACCOUNT_CONFIG: ACCOUNT_CONFIG } : {}),
      },
    });
    children.push(backend);
    backend.on('exit', (code) => {
      if (!stopping) {
        console.error(`dev: the backend exited (${code}); stopping.`);
        void stop(1);
      }
    });

    // The frame: vite.config.ts's frame config (root frame/, base /frame/, Preact with HMR), on its own origin.
    const frame = await createServer({
      configFile: resolve(ROOT, 'vite.config.ts'),
      mode: 'frame',
      root: FRAME_ROOT,
      // Each dev server has its own dependency cache: a shared one makes them invalidate each other's optimized deps.
      cacheDir: resolve(ROOT, `node_modules/.vite/rail-dev-frame-${FRAME_PORT}`),
      optimizeDeps: { include: ['preact', 'preact/hooks', 'preact/jsx-dev-runtime', 'preact/debug', 'preact/devtools', '@preact/signals', 'penpal'] },
      server: { host: 'localhost', port: FRAME_PORT, strictPort: true, cors: true },
    });
    servers.push(frame);
    await frame.listen();

    // The merchant page: demo/index.html, with /demo/payments proxied to the backend's demo merchant.
    const page = await createServer({
      configFile: false,
      root: resolve(ROOT, 'demo'),
      cacheDir: resolve(ROOT, `node_modules/.vite/rail-dev-page-${PAGE_PORT}`),
      optimizeDeps: { include: ['penpal'] },
      plugins: [demoPage()],
      server: {
        host: 'localhost',
        port: PAGE_PORT,
        strictPort: true,
        fs: { allow: [ROOT] },
        proxy: { '/demo/payments': { target: API_URL, changeOrigin: true } },
      },
    });
    servers.push(page);
    await page.listen();

    await waitFor(`${API_URL}/health`, 60_000);
    console.log(
      [
        '',
        'Rail dev',
        `  demo checkout  ${PAGE_ORIGIN}/`,
        `  frame          ${FRAME_ORIGIN}/frame/ (HMR)`,
        `  API            ${API_URL}`,
        `  test keys      ${DEV_PUBLISHABLE_KEY} / ${DEV_SECRET_KEY.slice(0, 20)}…`,
        '  Ctrl-C stops everything.',
        '',
      ].join('\n'),
    );
  } catch (error) {
    // A port in use or a backend that never answers: take down what did start, not leave it orphaned.
    console.error(error);
    await stop(1);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
