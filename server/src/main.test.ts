/**
 * The server as production runs it, as a black box: compiles main.ts to dist/server/main.js (what `npm start`
 * runs, with plain node and no TypeScript at run time), starts it on free ports with a temp data directory, checks
 * what it prints, takes a UPI payment through both listeners' health and the API, stops it with SIGTERM (exit 0),
 * and starts it again to prove the bootstrap keys survive a restart without a second operator.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { onPostgres } from './test-support/engines';
import { freePort, startServer } from './test-support/server-process';

const ROOT = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'rail-main-'));

beforeAll(() => {
  execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: ROOT, stdio: 'ignore' });
});

interface Started {
  child: ChildProcess;
  banner: string;
  output: () => string;
}

async function start(port: number, jsPort: number): Promise<Started> {
  const child = spawn(process.execPath, ['dist/server/main.js'], {
    cwd: ROOT,
    env: { ...process.env, RAIL_PORT: String(port), RAIL_JS_PORT: String(jsPort), RAIL_DATA_DIR: dataDir, RAIL_LOG_LEVEL: 'warn', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 20_000;
  while (!output.includes('demo checkout')) {
    if (child.exitCode !== null) throw new Error(`main.ts exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`main.ts did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 50));
  return { child, banner: output, output: () => output };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolveExit) => {
    child.once('exit', (code) => resolveExit(code));
    child.kill('SIGTERM');
  });
}

const field = (banner: string, label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(banner)?.[1];

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the compiled server (dist/server/main.js)', () => {
  test('boots, prints what operations.md asks, serves, stops on SIGTERM with 0, and keeps its keys on restart', async () => {
    const [port, jsPort] = [await freePort(), await freePort()];
    const first = await start(port, jsPort);
    const base = `http://127.0.0.1:${port}`;
    expect(field(first.banner, 'base_url')).toBe(base);
    expect(field(first.banner, 'js_url')).toBe(`http://127.0.0.1:${jsPort}`);
    expect(field(first.banner, 'demo checkout')).toBe(`${base}/demo`);
    const secretKey = field(first.banner, 'test secret key');
    const publishableKey = field(first.banner, 'test publishable key');
    expect(secretKey).toMatch(/^rail_full_test_[A-Za-z0-9]{32,}$/);
    expect(publishableKey).toMatch(/^rail_open_test_[A-Za-z0-9]{32,}$/);
    expect(first.banner).toContain('operator (first boot');
    expect(field(first.banner, 'password')).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(statSync(join(dataDir, 'bootstrap-keys.json')).mode & 0o777).toBe(0o600);

    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${jsPort}/health`)).status).toBe(200);
    const created = await fetch(`${base}/payments`, {
      method: 'POST',
      headers: { 'api-key': secretKey ?? '', 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 10000, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } }),
    });
    const payment = (await created.json()) as { payment_id: string; client_secret: string };
    const confirmed = await fetch(`${base}/payments/${payment.payment_id}/confirm`, {
      method: 'POST',
      headers: { 'api-key': publishableKey ?? '', 'content-type': 'application/json' },
      body: JSON.stringify({ client_secret: payment.client_secret }),
    });
    expect(await confirmed.json()).toMatchObject({ status: 'succeeded', amount_received: 10000 });
    expect(first.output()).not.toContain(payment.client_secret);
    // The dispatcher runs in the process: with no RAIL_WEBHOOK_URL the event is settled as no_endpoint.
    const webhookSecret = field(first.banner, 'webhook secret');
    expect(webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    let eventStatus: unknown;
    for (let i = 0; i < 100 && eventStatus !== 'no_endpoint'; i += 1) {
      const events = (await (await fetch(`${base}/events?object_id=${payment.payment_id}`, { headers: { 'api-key': secretKey ?? '' } })).json()) as {
        data: { delivery_status: string }[];
      };
      eventStatus = events.data[0]?.delivery_status;
      if (eventStatus !== 'no_endpoint') await new Promise((r) => setTimeout(r, 100));
    }
    expect(eventStatus).toBe('no_endpoint');

    expect(await stop(first.child)).toBe(0);
    // The first run left the V8 code cache beside the bundle (scripts/bundle-launcher.mjs); the restart runs with it.
    expect(readdirSync(join(ROOT, 'dist/server')).filter((file) => file.startsWith('server.cjs.') && file.endsWith('.v8cache'))).toHaveLength(1);

    const second = await start(port, jsPort);
    expect(field(second.banner, 'test secret key')).toBe(secretKey);
    expect(field(second.banner, 'test publishable key')).toBe(publishableKey);
    expect(second.banner).not.toContain('operator (first boot');
    expect(field(second.banner, 'webhook secret')).toBe(webhookSecret);
    const retrieved = await fetch(`${base}/payments/${payment.payment_id}`, { headers: { authorization: `Bearer ${secretKey}` } });
    expect(await retrieved.json()).toMatchObject({ status: 'succeeded' });
    expect(await stop(second.child)).toBe(0);
  });
});

// NODE_DEBUG=module has Node log every module it loads from a file (the bundle's requires of node_modules included).
const LOGGING_MODULE_LOADS = { NODE_DEBUG: 'module' };
const loadedBetterSqlite = (output: string) => /node_modules\/better-sqlite3\//.test(output);

onPostgres('the compiled server on PostgreSQL', (database) => {
  test('never loads better-sqlite3 (its modules are some 10 ms of a start)', async () => {
    const sqliteDir = mkdtempSync(join(tmpdir(), 'rail-main-sqlite-'));
    const postgresDir = mkdtempSync(join(tmpdir(), 'rail-main-pg-'));
    try {
      const onSqlite = await startServer({ dataDir: sqliteDir, entry: 'compiled', env: LOGGING_MODULE_LOADS });
      await onSqlite.stop();
      expect(loadedBetterSqlite(onSqlite.output())).toBe(true);
      const onPostgres = await startServer({ dataDir: postgresDir, databaseUrl: database().databaseUrl, entry: 'compiled', env: LOGGING_MODULE_LOADS });
      try {
        expect((await fetch(`${onPostgres.baseUrl}/health`)).status).toBe(200);
      } finally {
        await onPostgres.stop();
      }
      expect(loadedBetterSqlite(onPostgres.output())).toBe(false);
    } finally {
      rmSync(sqliteDir, { recursive: true, force: true });
      rmSync(postgresDir, { recursive: true, force: true });
    }
  });
});
