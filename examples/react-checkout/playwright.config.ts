import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

// Two servers of this app: the built app (`vite build` first) under `vite preview`, tested with the
// @rail/playwright fixture, and `vite dev`, where @rail/vite runs its own embedded Rail.
export default defineConfig({
  testDir: './tests',
  workers: 1,
  retries: 0,
  timeout: 30_000,
  use: {
    baseURL: 'http://127.0.0.1:4317',
    launchOptions: {
      // A system Chromium when there is one (no browser download needed); else Playwright's own.
      executablePath: existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : undefined,
      args: ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
  webServer: [
    // SIGTERM (not the default SIGKILL): vite closes, and @rail/vite stops its Rail and removes its data directory.
    { command: 'npx vite preview', url: 'http://127.0.0.1:4317', reuseExistingServer: false, timeout: 30_000, gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 } },
    { command: 'npx vite', url: 'http://127.0.0.1:4318', reuseExistingServer: false, timeout: 30_000, gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 } },
  ],
});
