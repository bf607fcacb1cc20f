/**
 * The scope each API-key route needs (docs/scopes.md is this table for readers; http/route-scopes.test.ts checks
 * that the two agree and that every route the app registers is here). `null`: the route takes no API key (public
 * pages, operator-session routes) or any authenticated caller (GET /v1/api-keys). Ephemeral keys carry no scopes:
 * one customer bounds them instead.
 */
import type { ApiScope } from '../../../protocol/api/keys';

export const ROUTE_SCOPES: Readonly<Record<string, ApiScope | null>> = {
  'GET /health': null,
  'GET /openapi.json': null,
  'GET /demo': null,
  'POST /demo/payments': null,

  'POST /payments': 'payments:write',
  'GET /payments/list': 'payments:read',
  'GET /payments/{payment_id}': 'payments:read',
  'POST /payments/{payment_id}': 'payments:write',
  'POST /payments/{payment_id}/confirm': 'payments:write',
  'POST /payments/{payment_id}/cancel': 'payments:write',
  'POST /payments/{payment_id}/capture': 'payments:write',
  'POST /payments/{payment_id}/cancel_post_capture': 'payments:write',
  'POST /payments/{payment_id}/incremental_authorization': 'payments:write',
  'POST /payments/{payment_id}/extend_authorization': 'payments:write',
  'POST /payments/{payment_id}/update_metadata': 'payments:write',
  'POST /payments/{payment_id}/eligibility': 'payments:write',
  'GET /poll/status/{poll_id}': 'payments:read',
  'POST /payments/session_tokens': 'payments:write',
  'POST /payments/{payment_id}/3ds/authentication': 'payments:write',
  'POST /payments/{payment_id}/complete_authorize': 'payments:write',
  'POST /payments/{payment_id}/post_session_tokens': 'payments:write',
  'POST /three_ds_decision/execute': 'payments:read',
  'GET /card_issuers': 'payments:read',
  'GET /account/payment_methods': 'payments:read',
  'POST /vault/tokens': 'payments:write',

  'POST /customers': 'customers:write',
  'GET /customers/list': 'customers:read',
  'GET /customers/{customer_id}': 'customers:read',
  'POST /customers/{customer_id}': 'customers:write',
  'DELETE /customers/{customer_id}': 'customers:write',
  'POST /ephemeral_keys': 'customers:write',
  'DELETE /ephemeral_keys/{id}': 'customers:write',

  'GET /customers/payment_methods': 'payment_methods:read',
  'GET /customers/{customer_id}/payment_methods': 'payment_methods:read',
  'POST /customers/{customer_id}/payment_methods/{payment_method_id}/default': 'payment_methods:write',
  'POST /payment_methods': 'payment_methods:write',
  'GET /payment_methods/{method_id}': 'payment_methods:read',
  'DELETE /payment_methods/{method_id}': 'payment_methods:write',
  'POST /payment_methods/{method_id}/update': 'payment_methods:write',

  'GET /customers/{customer_id}/mandates': 'mandates:read',
  'GET /mandates/list': 'mandates:read',
  'GET /mandates/{mandate_id}': 'mandates:read',
  'POST /mandates/revoke/{mandate_id}': 'mandates:write',

  'POST /subscriptions': 'subscriptions:write',
  'POST /subscriptions/create': 'subscriptions:write',
  'GET /subscriptions/estimate': 'subscriptions:read',
  'GET /subscriptions/items': 'subscriptions:read',
  'GET /subscriptions/list': 'subscriptions:read',
  'GET /subscriptions/{subscription_id}': 'subscriptions:read',
  'POST /subscriptions/{subscription_id}/cancel': 'subscriptions:write',
  'POST /subscriptions/{subscription_id}/confirm': 'subscriptions:write',
  'POST /subscriptions/{subscription_id}/pause': 'subscriptions:write',
  'POST /subscriptions/{subscription_id}/resume': 'subscriptions:write',
  'PUT /subscriptions/{subscription_id}/update': 'subscriptions:write',
  'POST /simulator/subscriptions/renew': 'subscriptions:write',

  'POST /refunds': 'refunds:write',
  'POST /refunds/list': 'refunds:read',
  'GET /refunds/{refund_id}': 'refunds:read',
  'POST /refunds/{refund_id}': 'refunds:write',

  'POST /disputes/accept/{dispute_id}': 'disputes:write',
  'GET /disputes/aggregate': 'disputes:read',
  'POST /disputes/evidence': 'disputes:write',
  'PUT /disputes/evidence': 'disputes:write',
  'DELETE /disputes/evidence': 'disputes:write',
  'GET /disputes/evidence/{dispute_id}': 'disputes:read',
  'GET /disputes/filter': 'disputes:read',
  'GET /disputes/list': 'disputes:read',
  'GET /disputes/{dispute_id}': 'disputes:read',
  'POST /files': 'disputes:write',
  'GET /files/{file_id}': 'disputes:read',
  'DELETE /files/{file_id}': 'disputes:write',
  'POST /simulator/disputes': 'disputes:write',
  'POST /simulator/disputes/{dispute_id}/outcome': 'disputes:write',

  'GET /events': 'events:read',
  'GET /events/{event_id}': 'events:read',
  'GET /events/{event_id}/attempts': 'events:read',
  'POST /events/{event_id}/retry': 'events:write',

  'POST /collect/collections': 'collect:write',
  'GET /collect/collections/{collection_id}': 'collect:read',
  'GET /collect/balance': 'collect:read',
  'POST /collect/settlements': 'collect:write',
  'GET /collect/settlements/{settlement_id}': 'collect:read',

  'GET /simulator/3ds/{payment_id}': null,
  'POST /simulator/3ds/{payment_id}': null,
  'GET /simulator/crypto/{payment_id}': null,
  'POST /simulator/crypto/{payment_id}': null,
  'GET /simulator/upi/{payment_id}': null,
  'POST /simulator/upi/{payment_id}': null,
  'GET /simulator/bank_transfer/{payment_id}': null,
  'POST /simulator/bank_transfer/{payment_id}': null,
  'GET /simulator/collect/{collection_id}': null,
  'POST /simulator/collect/{collection_id}': null,

  'GET /v1/scopes': null,
  'GET /v1/api-keys': null,
  'POST /v1/api-keys': null,
  'POST /v1/api-keys/{id}/rotate': null,
  'DELETE /v1/api-keys/{id}': null,
  'POST /v1/sessions': null,
  'POST /v1/sessions/verify': null,
  'DELETE /v1/sessions': null,
  'GET /v1/security-emails': null,
  'PUT /v1/collect/wallet': null,
  'POST /v1/sessions/two-factor': null,
  'GET /v1/operators': null,
  'POST /v1/operators/invitations': null,
  'POST /v1/operators/invitations/accept': null,
  'DELETE /v1/operators/{id}': null,
  'POST /v1/operators/{id}/two-factor-resets': null,
  'POST /v1/operators/two-factor-resets/{reset_id}/approve': null,
  'GET /v1/webhook-endpoints': null,
  'POST /v1/webhook-endpoints': null,
  'POST /v1/webhook-endpoints/{id}': null,
  'DELETE /v1/webhook-endpoints/{id}': null,
  'POST /v1/webhook-endpoints/{id}/rotate-secret': null,
  'POST /v1/webhook-endpoints/{id}/test': null,
};

/** A method's entry per Hono route path, as routeScope found it: paths of registered routes, methods Node's parser knows. */
const scopesByRoute = new Map<string, Map<string, ApiScope | null | undefined>>();

/**
 * The ROUTE_SCOPES entry of `method` on a Hono route path (undefined when the table has none), looked up once per
 * route: its key's text (a regular expression's replace, then a string made for each call) cost some 2 us of every
 * authenticated call under load.
 */
export function routeScope(method: string, routePath: string): ApiScope | null | undefined {
  let byMethod = scopesByRoute.get(routePath);
  if (byMethod === undefined) {
    byMethod = new Map();
    scopesByRoute.set(routePath, byMethod);
  }
  if (byMethod.has(method)) return byMethod.get(method);
  // The table's key of a Hono route path: `POST /payments/:payment_id` is `POST /payments/{payment_id}`.
  const scope = ROUTE_SCOPES[`${method} ${routePath.replace(/:([A-Za-z_]+)/g, '{$1}')}`];
  byMethod.set(method, scope);
  return scope;
}
