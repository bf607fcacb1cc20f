import type { CoreDeps } from '../core/shared/deps';
import type { Logger } from '../logger';
import type { WebhookDeliveryConfig } from '../webhooks/delivery';
import type { RateLimitDeps } from './rate-limit';
import type { DemoOptions } from './routes/demo/routes';

/** What the API application is built from: the core's dependencies plus what only HTTP needs. */
export interface AppDeps extends CoreDeps {
  logger: Logger;
  publicBaseUrl: string;
  publicJsUrl: string;
  /** False while shutting down: /health answers 503. */
  isReady?: () => boolean;
  /** The demo merchant backend and page; absent disables /demo. */
  demo?: DemoOptions | undefined;
  bodyLimitBytes?: number;
  /** Delivery policy for POST /events/{event_id}/retry (the dispatcher gets the same from main.ts). */
  webhooks?: WebhookDeliveryConfig;
  /**
   * Limits on the browser and public surfaces and on failed authentications (http/rate-limit.ts); undefined limits
   * nothing (RAIL_RATE_LIMITS=off). Required, as the middleware that authenticates requires it (AuthenticateDeps).
   */
  rateLimits: RateLimitDeps | undefined;
}
