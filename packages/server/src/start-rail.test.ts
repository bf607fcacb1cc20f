/**
 * startRail() as an embedding test suite uses it: in process and as a child process (the CLI), each on SQLite in a
 * temporary directory with the simulators on, a payment created with the secret key and confirmed with the
 * publishable key over HTTP, then stopped: listeners closed, temporary directory removed.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startRail, type RunningRail } from './index';

const started: RunningRail[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((rail) => rail.stop()));
});

async function payByUpi(rail: RunningRail, vpa: string): Promise<{ status: string; amount_received?: number }> {
  const created = await fetch(`${rail.baseUrl}/payments`, {
    method: 'POST',
    headers: { 'api-key': rail.secretKey, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 10000, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: vpa } } } }),
  });
  expect(created.status).toBe(200);
  const payment = (await created.json()) as { payment_id: string; client_secret: string };
  const confirmed = await fetch(`${rail.baseUrl}/payments/${payment.payment_id}/confirm`, {
    method: 'POST',
    headers: { 'api-key': rail.publishableKey, 'content-type': 'application/json' },
    body: JSON.stringify({ client_secret: payment.client_secret }),
  });
  return (await confirmed.json()) as { status: string; amount_received?: number };
}

async function refused(url: string): Promise<boolean> {
  try {
    await fetch(url);
    return false;
  } catch {
    return true;
  }
}

describe.each(['in-process', 'child-process'] as const)('startRail (%s)', (mode) => {
  test('serves API, runtime and frame on free ports with test keys, takes payments, and stops cleanly', async () => {
    const rail = await startRail({ mode });
    started.push(rail);
    expect(rail.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(rail.jsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(rail.baseUrl).not.toBe(rail.jsUrl);
    expect(rail.secretKey).toMatch(/^rail_full_test_/);
    expect(rail.publishableKey).toMatch(/^rail_open_test_/);
    expect(existsSync(join(rail.dataDir, 'rail.sqlite'))).toBe(true);

    expect((await fetch(`${rail.baseUrl}/health`)).status).toBe(200);
    const runtime = await fetch(`${rail.jsUrl}/v1/`);
    expect(runtime.status).toBe(200);
    // The runtime (one build, one hash) learns the API the server announced from the js listener, not a default port:
    // the frame document carries it and /v1/config.json answers it.
    expect(await (await fetch(`${rail.jsUrl}/v1/config.json`)).json()).toMatchObject({ api_base_url: rail.baseUrl });
    const frame = await fetch(`${rail.jsUrl}/frame/`);
    expect(frame.status).toBe(200);
    expect(await frame.text()).toContain(rail.baseUrl);

    expect(await payByUpi(rail, 'success@upi')).toMatchObject({ status: 'succeeded', amount_received: 10000 });
    expect(await payByUpi(rail, 'failure@upi')).toMatchObject({ status: 'failed' });
    // The default account offers every simulated rail in test mode.
    const methods = await fetch(`${rail.baseUrl}/account/payment_methods?accepted_currencies=USD`, { headers: { 'api-key': rail.secretKey } });
    expect(JSON.stringify(await methods.json())).toContain('card');

    await rail.stop();
    await rail.stop();
    expect(await refused(`${rail.baseUrl}/health`)).toBe(true);
    expect(await refused(`${rail.jsUrl}/health`)).toBe(true);
    expect(existsSync(rail.dataDir)).toBe(false);
  });
});

describe('startRail options', () => {
  test('fixed keys, a given data directory (kept after stop) and two servers side by side', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'rail-embed-test-'));
    try {
      const secretKey = 'rail_full_test_embedSecretKey000000000000000000000001';
      const publishableKey = 'rail_open_test_embedPublishableKey0000000000000000001';
      const first = await startRail({ dataDir, secretKey, publishableKey });
      started.push(first);
      const second = await startRail();
      started.push(second);
      expect(first.secretKey).toBe(secretKey);
      expect(first.publishableKey).toBe(publishableKey);
      expect(second.baseUrl).not.toBe(first.baseUrl);
      expect(await payByUpi(first, 'success@upi')).toMatchObject({ status: 'succeeded' });
      // One server's key is not the other's.
      const foreign = await fetch(`${second.baseUrl}/payments`, {
        method: 'POST',
        headers: { 'api-key': first.secretKey, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 100, currency: 'INR' }),
      });
      expect(foreign.status).toBe(401);
      await first.stop();
      expect(existsSync(join(dataDir, 'rail.sqlite'))).toBe(true);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test('an invalid option is refused with the variable it names, and leaves no temporary directory', async () => {
    await expect(startRail({ port: 70000 })).rejects.toThrow(/RAIL_PORT/);
    await expect(startRail({ accountConfig: '/nonexistent/account.json' })).rejects.toThrow(/RAIL_ACCOUNT_CONFIG/);
  });
});
