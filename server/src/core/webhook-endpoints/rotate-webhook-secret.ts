import { generateWebhookSecret } from '../../webhooks/signing';
import { queueSecurityEmail } from '../security-emails/queue-security-email';
import type { OperatorContext } from '../sessions/operator-context';
import { requireFreshStepUp } from '../sessions/require-key-manager';
import type { CoreDeps } from '../shared/deps';
import { findWebhookEndpointOrThrow } from './find-webhook-endpoint';
import { toWebhookEndpoint } from './webhook-endpoint-view';

/** How long the old secret keeps signing beside the new one after a rotation. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60_000;

/**
 * POST /v1/webhook-endpoints/{id}/rotate-secret (fresh step-up, webhooks:manage): a new signing secret, answered
 * once. For 24 hours every delivery carries two `v1,` signatures in webhook-signature (new, then old), so a receiver
 * switches secrets whenever it likes within the day without rejecting a delivery (Standard Webhooks allows several).
 */
export async function rotateWebhookSecret(deps: CoreDeps, context: OperatorContext, endpointId: string) {
  requireFreshStepUp(deps, context, 'webhooks:manage');
  const endpoint = await findWebhookEndpointOrThrow(deps, context.account.accountId, endpointId);
  const now = deps.clock.now();
  const rotated = {
    ...endpoint,
    secret: generateWebhookSecret(),
    previousSecret: endpoint.secret,
    previousSecretUntil: new Date(now.getTime() + WEBHOOK_SECRET_OVERLAP_MS),
    updatedAt: now,
  };
  await deps.store.transaction(async (tx) => {
    await tx.webhookEndpoints.updateWebhookEndpoint(rotated);
    await queueSecurityEmail(tx, deps, context.account, {
      subject: `${endpoint.mode} webhook secret rotated`,
      body: `${context.operator.email} rotated the signing secret of ${endpoint.url} (${endpointId}); the old one also signs until ${rotated.previousSecretUntil.toISOString()}.`,
    });
  });
  return { ...toWebhookEndpoint(rotated, now), secret: rotated.secret };
}
