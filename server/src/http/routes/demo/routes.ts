/**
 * DEMO MERCHANT BACKEND. Not part of the payments API: it plays the merchant's server for the demo checkout
 * page at {base_url}/demo. It exists only when the test-mode bootstrap keys are known, and it only ever creates
 * test-mode payments (with the test secret key, through the core, as a merchant server would).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { authenticateApiKey } from '../../../core/auth/auth';
import { createPayment } from '../../../core/payments/create-payment';
import type { CoreDeps } from '../../../core/shared/deps';
import { ApiError } from '../../../core/shared/errors';
import type { DemoPaymentResponse } from '../../../../../protocol/api/account';
import type { AppEnv } from '../../env';
import { errorResponse } from '../../error-handler';
import { CachedFile } from '../../static-files';

export interface DemoOptions {
  /** Test secret key the demo merchant backend uses. */
  testSecretKey: string;
  /** Test publishable key written into the demo page. */
  testPublishableKey: string;
  /** Where the demo page is (first existing path wins). */
  pagePaths: readonly string[];
  /** RAIL_DEMO=auto: the demo answers 404 once the account has a live key (a production account). */
  offWhenLiveKeysExist?: boolean;
}

export const DEMO_AMOUNT = 10_000;
export const DEMO_CURRENCY = 'INR';

export function registerDemoRoutes(app: OpenAPIHono<AppEnv>, deps: CoreDeps, demo: DemoOptions, urls: { publicBaseUrl: string; publicJsUrl: string }): void {
  if (!/^rail_full_test_/.test(demo.testSecretKey)) throw new Error('the demo merchant backend needs a test secret key');
  const page = new CachedFile(demo.pagePaths, {
    __RAIL_JS_URL__: urls.publicJsUrl,
    __RAIL_PUBLISHABLE_KEY__: demo.testPublishableKey,
    __RAIL_API_BASE_URL__: urls.publicBaseUrl,
  });
  void page.get();
  // The demo's account and whether it may still serve: an unauthenticated way to create payments has no place on
  // an account that takes live payments.
  const demoAuth = () => authenticateApiKey(deps, demo.testSecretKey);
  const offOnLiveAccounts: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (demo.offWhenLiveKeysExist === true) {
      const auth = await demoAuth();
      if (await deps.store.apiKeys.hasUsableKeys({ accountId: auth.accountId, mode: 'live' }, deps.clock.now())) {
        return errorResponse(c, new ApiError('ERR_2006', 'The demo is off on this server: its account has live keys (RAIL_DEMO).'));
      }
    }
    return next();
  };
  app.use('/demo', offOnLiveAccounts);
  app.use('/demo/*', offOnLiveAccounts);

  app.get('/demo', async (c) => {
    const file = await page.get();
    if (file === undefined) return errorResponse(c, new ApiError('ERR_5007', 'The demo page (demo/index.html) is not present on this server.'));
    c.header('Content-Type', 'text/html; charset=utf-8');
    c.header('Cache-Control', 'no-store');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(file.body as Uint8Array<ArrayBuffer>, 200);
  });

  app.post('/demo/payments', async (c) => {
    const auth = await demoAuth();
    const { payment } = await createPayment(deps, auth, {
      amount: DEMO_AMOUNT,
      currency: DEMO_CURRENCY,
      description: 'Rail demo checkout',
      metadata: { source: 'demo' },
    });
    const body: DemoPaymentResponse = { payment_id: payment.paymentId, client_secret: payment.clientSecret };
    return c.json(body, 200);
  });
}
