import type { Scope } from '../../kernel/store-types';
import type { WebhookDeliveryConfig } from '../../webhooks/delivery';
import { ApiError } from '../shared/errors';

/**
 * Runs a delivery made by hand (a retry, a test event) in one of the endpoint's places for attempts in flight, the
 * share the dispatcher's attempts take too, so that retrying a slow endpoint again and again never holds more sockets
 * than its share. While every place is taken it is refused at once (429 ERR_4290), not queued: the caller learns
 * why and when to come back (an attempt ends within the timeout, the Retry-After), and holds no request open.
 */
export async function inEndpointPlace<T>(config: WebhookDeliveryConfig, endpoint: Scope, attempt: () => Promise<T>): Promise<T> {
  const shares = config.endpointShares;
  if (!shares.tryTake(endpoint)) {
    const retryAfterSeconds = Math.max(1, Math.ceil(config.timeoutMs / 1000));
    throw new ApiError(
      'ERR_4290',
      `The webhook endpoint already has ${shares.limit} delivery attempts in flight, as many as it may have at once; retry after ${retryAfterSeconds} seconds.`,
      { retryAfterSeconds },
    );
  }
  try {
    return await attempt();
  } finally {
    shares.release(endpoint);
  }
}
