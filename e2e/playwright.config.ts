import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { E2E } from './env';

const DEBIAN_CHROMIUM = '/usr/bin/chromium';
const dataDir = mkdtempSync(join(tmpdir(), 'rail-e2e-'));

export default defineConfig({
  testDir: './tests',
  fullyParallel: true,
  workers: 2,
  retries: 0,
  timeout: 30_000,
  reporter: [['list'], ['json', { outputFile: '../test-results/e2e.json' }]],
  use: {
    baseURL: E2E.merchantUrl,
    launchOptions: {
      executablePath: existsSync(DEBIAN_CHROMIUM) ? DEBIAN_CHROMIUM : undefined,
      // Without these flags Chromium reaches for Google hosts that this network refuses.
      args: ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
  webServer: [
    {
      command: 'node --import tsx server/src/main.ts',
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
        RAIL_LOG_LEVEL: 'warn',
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
