/**
 * The Playwright fixture: `test` extended with an embedded Rail started once per worker (@rail/server, in the
 * worker's process, SQLite in a temporary directory, simulators on) and handed to each test as `rail`: its URLs,
 * test keys, the `access` the helpers take, and `createPayment()`. A checkout suite runs hermetic and offline.
 *
 * @example
 * import { expect, test, fillCard, TEST_CARDS } from '@rail/playwright';
 * test('card checkout', async ({ page, rail }) => {
 *   const payment = await rail.createPayment({ amount: 2500, currency: 'USD' });
 *   await page.goto(`/checkout?client_secret=${payment.client_secret}&pk=${rail.publishableKey}&js=${rail.jsUrl}`);
 *   await fillCard(page, { number: TEST_CARDS.success, expiry: '12/34', cvc: '123', name: 'Asha Rao' });
 * });
 */
import { test as base } from '@playwright/test';
import { startRail, type RunningRail, type StartRailOptions } from '@rail/server';
import type { ApiAccess } from './helpers.js';

/** A payment as POST /payments answers it (the fields a checkout needs, and the rest). */
export interface CreatedPayment {
  payment_id: string;
  client_secret: string;
  status: string;
  amount: number;
  currency: string;
  [field: string]: unknown;
}

/** What each test gets as `rail`. */
export interface RailFixture {
  /** The API (`base_url`); the secret key calls it from Node, never from the page. */
  baseUrl: string;
  /** Where the page loads the runtime: `${jsUrl}/v1/`. */
  jsUrl: string;
  secretKey: string;
  publishableKey: string;
  /** `{ apiBaseUrl, secretKey }` for retrievePayment, waitForPaymentStatus, accountOffers, ... */
  access: ApiAccess;
  /** POST /payments with the secret key; default body `{ amount: 10000, currency: 'INR' }`. Throws on an error answer. */
  createPayment(body?: Record<string, unknown>): Promise<CreatedPayment>;
}

export interface RailWorkerFixtures {
  /** Options of the worker's server (`test.use({ railOptions: {...} })` at the top level of a file, or in the config's `use`). */
  railOptions: StartRailOptions;
  /** The worker's running server. */
  railServer: RunningRail;
}

/** POST /payments on `rail` with its secret key. */
export async function createPayment(rail: Pick<RunningRail, 'baseUrl' | 'secretKey'>, body: Record<string, unknown> = { amount: 10000, currency: 'INR' }): Promise<CreatedPayment> {
  const response = await fetch(`${rail.baseUrl}/payments`, {
    method: 'POST',
    headers: { 'api-key': rail.secretKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as CreatedPayment & { error?: { code: string; message: string } };
  if (!response.ok || answer.error) throw new Error(`POST /payments answered ${response.status}: ${answer.error?.code ?? ''} ${answer.error?.message ?? ''}`.trim());
  return answer;
}

export const test = base.extend<{ rail: RailFixture }, RailWorkerFixtures>({
  railOptions: [{}, { scope: 'worker', option: true }],
  railServer: [
    async ({ railOptions }, use) => {
      const server = await startRail(railOptions);
      try {
        await use(server);
      } finally {
        await server.stop();
      }
    },
    { scope: 'worker' },
  ],
  rail: async ({ railServer }, use) => {
    await use({
      baseUrl: railServer.baseUrl,
      jsUrl: railServer.jsUrl,
      secretKey: railServer.secretKey,
      publishableKey: railServer.publishableKey,
      access: { apiBaseUrl: railServer.baseUrl, secretKey: railServer.secretKey },
      createPayment: (body) => createPayment(railServer, body),
    });
  },
});

export { expect } from '@playwright/test';
