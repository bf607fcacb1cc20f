/**
 * DEMO MERCHANT BACKEND. Not part of the payments API: it plays the merchant's server for the demo checkout
 * page at {base_url}/demo. It exists only when the test-mode bootstrap keys are known, and it only ever creates
 * test-mode payments, on the demo's own test account (every simulator rail; core/accounts/ensure-demo-account.ts),
 * with that account's test secret key, through the core, as a merchant server would. The default account keeps
 * the spec's rails.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { ensureDemoAccount, demoKey, type DemoAccountKeys } from '../../../core/accounts/ensure-demo-account';
import { authenticateApiKey } from '../../../core/auth/auth';
import { createPayment } from '../../../core/payments/create-payment';
import type { CoreDeps } from '../../../core/shared/deps';
import { ApiError } from '../../../core/shared/errors';
import { DemoPaymentRequest, type DemoPaymentResponse } from '../../../../../protocol/api/account';
import type { AppEnv } from '../../env';
import { errorResponse } from '../../error-handler';
import { CachedFile, loadAfterStart } from '../../static-files';

export interface DemoOptions {
  /** The default account's test secret key: the demo account's keys are derived from it. */
  testSecretKey: string;
  /** Where the demo page is (first existing path wins). */
  pagePaths: readonly string[];
  /** RAIL_DEMO=auto: the demo answers 404 once the account has a live key (a production account). */
  offWhenLiveKeysExist?: boolean;
}

/** What the demo charges in each of its currencies (minor units): INR 100.00, EUR 25.00, KES 1,500.00. */
export const DEMO_AMOUNTS: Record<NonNullable<DemoPaymentRequest['currency']>, number> = { INR: 10_000, EUR: 2_500, KES: 150_000 };

export function registerDemoRoutes(app: OpenAPIHono<AppEnv>, deps: CoreDeps, demo: DemoOptions, urls: { publicBaseUrl: string; publicJsUrl: string }): void {
  if (!/^rail_full_test_/.test(demo.testSecretKey)) throw new Error('the demo merchant backend needs a test secret key');
  const page = new CachedFile(demo.pagePaths, {
    __RAIL_JS_URL__: urls.publicJsUrl,
    __RAIL_PUBLISHABLE_KEY__: demoKey(demo.testSecretKey, 'open'),
    __RAIL_API_BASE_URL__: urls.publicBaseUrl,
  });
  loadAfterStart(page.get);
  // Whether the demo may still serve: an unauthenticated way to create payments has no place on a server whose
  // account takes live payments.
  const offOnLiveAccounts: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (demo.offWhenLiveKeysExist === true) {
      const auth = await authenticateApiKey(deps, demo.testSecretKey);
      if (await deps.store.apiKeys.hasUsableKeys({ accountId: auth.accountId, mode: 'live' }, deps.clock.now())) {
        return errorResponse(c, new ApiError('ERR_2006', 'The demo is off on this server: its account has live keys (RAIL_DEMO).'));
      }
    }
    return next();
  };
  app.use('/demo', offOnLiveAccounts);
  app.use('/demo/*', offOnLiveAccounts);
  // Created on the first demo request, not at boot: a server that never shows the demo never has the account.
  let demoAccount: Promise<DemoAccountKeys> | undefined;
  const demoAccountKeys = () => {
    demoAccount ??= ensureDemoAccount(deps, demo.testSecretKey).catch((error: unknown) => {
      demoAccount = undefined;
      throw error;
    });
    return demoAccount;
  };

  app.get('/demo', async (c) => {
    const file = await page.get();
    if (file === undefined) return errorResponse(c, new ApiError('ERR_5007', 'The demo page (demo/index.html) is not present on this server.'));
    await demoAccountKeys();
    c.header('Content-Type', 'text/html; charset=utf-8');
    c.header('Cache-Control', 'no-store');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(file.body as Uint8Array<ArrayBuffer>, 200);
  });

  app.post('/demo/payments', async (c) => {
    const text = await c.req.text();
    let json: unknown = {};
    try {
      if (text.trim() !== '') json = JSON.parse(text);
    } catch {
      throw new ApiError('ERR_2003', 'The body is not JSON: send {"currency": "INR"}, "EUR" or "KES".');
    }
    const request = DemoPaymentRequest.safeParse(json);
    if (!request.success) throw new ApiError('ERR_2003', `The demo takes {"currency"} with one of ${Object.keys(DEMO_AMOUNTS).join(', ')}.`, { fieldName: 'currency' });
    const currency = request.data.currency ?? 'INR';
    const auth = await authenticateApiKey(deps, (await demoAccountKeys()).testSecretKey);
    const { payment } = await createPayment(deps, auth, {
      amount: DEMO_AMOUNTS[currency],
      currency,
      description: 'Rail demo checkout',
      metadata: { source: 'demo' },
    });
    const body: DemoPaymentResponse = { payment_id: payment.paymentId, client_secret: payment.clientSecret };
    return c.json(body, 200);
  });
}
