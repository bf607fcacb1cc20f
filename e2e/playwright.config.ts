import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { E2E } from './env';

const DEBIAN_CHROMIUM = '/usr/bin/chromium';

// The config is evaluated again in every worker; the runner's first evaluation fixes the data dir for all of them
// (workers inherit its environment), so specs can open the server's SQLite file and read its log.
process.env.RAIL_E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'rail-e2e-'));
const dataDir = process.env.RAIL_E2E_DATA_DIR;
/** The API server's stdout and stderr (pino JSON lines), scanned by the no-card-number spec. */
export const SERVER_LOG = join(dataDir, 'server.log');

export default defineConfig({
  testDir: './tests',
  fullyParallel: true,
  workers: 2,
  retries: 0,
  timeout: 30_000,
  reporter: [['list'], ['json', { outputFile: '../.reports/e2e.json' }]],
  use: {
    baseURL: E2E.merchantUrl,
    launchOptions: {
      executablePath: existsSync(DEBIAN_CHROMIUM) ? DEBIAN_CHROMIUM : undefined,
      // Without these flags Chromium reaches for Google hosts that this network refuses. Debian's headless Chromium
      // also loads its omnibox popup (about 400 files) for every new page unless its WebUI is turned off.
      args: ['--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
  webServer: [
    {
      command: `node --import tsx server/src/main.ts > '${SERVER_LOG}' 2>&1`,
      cwd: '..',
      url: `${E2E.baseUrl}/health`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        RAIL_HOST: '127.0.0.1',
        RAIL_PORT: String(E2E.apiPort),
        RAIL_JS_PORT: String(E2E.jsPort),
        RAIL_DATA_DIR: dataDir,
        RAIL_TEST_SECRET_KEY: E2E.secretKey,
        RAIL_TEST_PUBLISHABLE_KEY: E2E.publishableKey,
        // Card, crypto and bank-transfer rails for the test account (docs/simulator.md); a rail without a
        // simulator on this server is simply not offered, and the specs that need it skip.
        RAIL_ACCOUNT_CONFIG: 'e2e/account-config.json',
        // info: one line per request, so the log scan covers every request the suite makes.
        RAIL_LOG_LEVEL: 'info',
      },
    },
    {
      command: 'node --import tsx e2e/merchant-server.ts',
      cwd: '..',
      url: `${E2E.merchantUrl}/health`,
      reuseExistingServer: false,
      timeout: 30_000,
    },
  ],
});
