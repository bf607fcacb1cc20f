import { generateWebhookSecret } from '../../webhooks/signing';
import { queueSecurityEmail } from '../security-emails/queue-security-email';
import type { OperatorContext } from '../sessions/operator-context';
import { requireFreshStepUp } from '../sessions/require-fresh-step-up';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';
import { findWebhookEndpointOrThrow } from './find-webhook-endpoint';
import { toWebhookEndpoint } from './webhook-endpoint-view';

/** How long the old secret keeps signing beside the new one after a rotation. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60_000;

/**
 * POST /v1/webhook-endpoints/{id}/rotate-secret (fresh step-up, webhooks:manage): a new signing secret, answered
 * once. For 24 hours every delivery carries two `v1,` signatures in webhook-signature (new, then old), so a receiver
 * switches secrets whenever it likes within the day without rejecting a delivery (Standard Webhooks allows several).
 * A second rotation during the overlap is refused (ERR_4093): it would drop the secret promised for the day. The
 * swap is one conditional statement, so concurrent rotations or a change of the URL never lose the new secret.
 */
export async function rotateWebhookSecret(deps: CoreDeps, context: OperatorContext, endpointId: string) {
  requireFreshStepUp(deps, context, 'webhooks:manage');
  const endpoint = await findWebhookEndpointOrThrow(deps, context.account.accountId, endpointId);
  const now = deps.clock.now();
  const overlapOpen = () =>
    new ApiError('ERR_4093', 'The previous secret still signs until the end of the last rotation\'s overlap; rotate again after it, so no receiver loses its secret early.');
  if (endpoint.previousSecretUntil !== null && endpoint.previousSecretUntil > now) throw overlapOpen();
  const rotated = {
    ...endpoint,
    secret: generateWebhookSecret(),
    previousSecret: endpoint.secret,
    previousSecretUntil: new Date(now.getTime() + WEBHOOK_SECRET_OVERLAP_MS),
    updatedAt: now,
  };
  await deps.store.transaction(async (tx) => {
    const rotation = { expected: endpoint.secret, secret: rotated.secret, previousUntil: rotated.previousSecretUntil, at: now };
    if (!(await tx.webhookEndpoints.rotateWebhookSecret(endpoint.accountId, endpointId, rotation))) {
      // Another rotation or a deletion got there first.
      if ((await tx.webhookEndpoints.findWebhookEndpointById(endpoint.accountId, endpointId)) === undefined) {
        throw new ApiError('ERR_4092', 'No webhook endpoint with this id exists for this account.');
      }
      throw overlapOpen();
    }
    await queueSecurityEmail(tx, deps, context.account, {
      subject: `${endpoint.mode} webhook secret rotated`,
      body: `${context.operator.email} rotated the signing secret of ${endpoint.url} (${endpointId}); the old one also signs until ${rotated.previousSecretUntil.toISOString()}.`,
    });
  });
  return Object.assign(toWebhookEndpoint(rotated, now), { secret: rotated.secret });
}
