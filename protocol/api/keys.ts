/**
 * REST shapes of key management (the spec's Reporting API under {base_url}/v1: scopes, API keys) and of the operator
 * sessions that key management needs (docs/operations.md "Operator sessions"). docs/keys.md walks through them.
 */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';

/**
 * Every scope a key or an operator may hold. The spec names payments:read, payments:write, refunds:read,
 * routing:write and api_keys:manage; the rest follow the same resource:action shape, one resource per API family
 * (docs/open-points.md). docs/scopes.md says which scope each route needs.
 */
export const SCOPES = [
  'payments:read',
  'payments:write',
  'refunds:read',
  'refunds:write',
  'customers:read',
  'customers:write',
  'payment_methods:read',
  'payment_methods:write',
  'mandates:read',
  'mandates:write',
  'subscriptions:read',
  'subscriptions:write',
  'disputes:read',
  'disputes:write',
  'events:read',
  'events:write',
  'collect:read',
  'collect:write',
  'routing:read',
  'routing:write',
  'api_keys:manage',
  'operators:manage',
  'webhooks:manage',
] as const;
export const ApiScope = lazySchema(() => z.enum(SCOPES));
export type ApiScope = z.infer<typeof ApiScope>;

/** Scopes only operators hold: what a key can never do. */
export const OPERATOR_ONLY_SCOPES: readonly ApiScope[] = ['api_keys:manage', 'operators:manage', 'webhooks:manage'];

/** The 19 scopes of a new key (spec rule 1): all but routing:read (arranged through the account manager) and the operators' own. */
export const DEFAULT_KEY_SCOPES: readonly ApiScope[] = SCOPES.filter((scope) => scope !== 'routing:read' && !OPERATOR_ONLY_SCOPES.includes(scope));

/** Key entries with this name are managed credentials (spec rule 4): hidden from the list, never rotated or revoked. */
export const SERVICE_GATEWAY_KEY_NAME = 'service_gateway';

export const KEY_LIMITS = { nameMax: 64, keyIdMax: 64 } as const;

export const ScopesResponse = lazySchema(() => z.object({ scopes: z.array(ApiScope.unwrap()) }).meta({ id: 'ScopesResponse' }));

export const KeyIdParam = z.object({ get id() { return z.string(); } });

export const CreateApiKeyRequest = lazySchema(() =>
  z
    .object({
      mode: z.enum(['test', 'live']).default('test'),
      name: z.string().trim().min(1).max(KEY_LIMITS.nameMax),
      /** Rail's addition (docs/open-points.md): a publishable key is issued the same way; default a secret key. */
      key_type: z.enum(['secret', 'publishable']).default('secret'),
    })
    .strict()
    .meta({ id: 'CreateApiKeyRequest' }));
export type CreateApiKeyRequest = z.infer<typeof CreateApiKeyRequest>;

export const ApiKeyEntry = lazySchema(() =>
  z
    .object({
      key_id: z.string(),
      name: z.string(),
      prefix: z.string(),
      created: z.string(),
      mode: z.enum(['test', 'live']),
      key_type: z.enum(['secret', 'publishable']),
      scopes: z.array(ApiScope.unwrap()),
      /** Set while a rotated key is in its grace window: it stops working then. */
      expires_at: z.string().nullable(),
    })
    .meta({ id: 'ApiKeyEntry' }));
export type ApiKeyEntry = z.infer<typeof ApiKeyEntry>;

/** A new key (create, rotate): the entry plus the plaintext, returned this once and never again. */
export const IssuedApiKey = lazySchema(() =>
  ApiKeyEntry.unwrap().extend({ api_key: z.string() }).meta({ id: 'IssuedApiKey' }));
export type IssuedApiKey = z.infer<typeof IssuedApiKey>;

export const ApiKeyList = lazySchema(() => z.array(ApiKeyEntry.unwrap()).meta({ id: 'ApiKeyList' }));

export const RevokedApiKey = lazySchema(() =>
  z.object({ key_id: z.string(), revoked: z.literal(true) }).meta({ id: 'RevokedApiKey' }));

export const CreateSessionRequest = lazySchema(() =>
  z
    .object({ email: z.string().trim().min(3).max(254), password: z.string().min(1).max(1024) })
    .strict()
    .meta({ id: 'CreateSessionRequest' }));
export type CreateSessionRequest = z.infer<typeof CreateSessionRequest>;

export const VerifySessionRequest = lazySchema(() =>
  z
    .object({ code: z.string().regex(/^\d{6}$/, 'a 6-digit TOTP code') })
    .strict()
    .meta({ id: 'VerifySessionRequest' }));
export type VerifySessionRequest = z.infer<typeof VerifySessionRequest>;

export const SessionResponse = lazySchema(() =>
  z
    .object({
      session_token: z.string(),
      expires_at: z.string(),
      /** Until when key management is open to this session; null before the first verification. */
      two_factor_fresh_until: z.string().nullable(),
    })
    .meta({ id: 'SessionResponse' }));

export const VerifiedSession = lazySchema(() =>
  z
    .object({ expires_at: z.string(), two_factor_fresh_until: z.string() })
    .meta({ id: 'VerifiedSession' }));

export const EndedSession = lazySchema(() => z.object({ ended: z.literal(true) }).meta({ id: 'EndedSession' }));

export const SecurityEmail = lazySchema(() =>
  z
    .object({
      id: z.string(),
      to: z.string(),
      subject: z.string(),
      body: z.string(),
      created: z.string(),
      /** pending: not sent yet (no RAIL_SMTP_URL, or the server refused it and it is retried). */
      status: z.enum(['pending', 'sent']),
      sent_at: z.string().nullable(),
      attempts: z.number().int(),
    })
    .meta({ id: 'SecurityEmail' }));
export type SecurityEmail = z.infer<typeof SecurityEmail>;

export const SecurityEmailList = lazySchema(() =>
  z.object({ data: z.array(SecurityEmail.unwrap()) }).meta({ id: 'SecurityEmailList' }));

/** Operators managed by operators (docs/keys.md "Operators"). */
export const OPERATOR_LIMITS = { passwordMin: 12, passwordMax: 1024 } as const;

export const OperatorIdParam = z.object({ get id() { return z.string().max(64); } });
export const ResetIdParam = z.object({ get reset_id() { return z.string().max(64); } });

export const OperatorEntry = lazySchema(() =>
  z
    .object({
      operator_id: z.string(),
      email: z.string(),
      scopes: z.array(ApiScope.unwrap()),
      two_factor: z.enum(['enrolled', 'not_enrolled']),
      created: z.string(),
    })
    .meta({ id: 'Operator' }));
export type OperatorEntry = z.infer<typeof OperatorEntry>;

export const OperatorList = lazySchema(() => z.object({ data: z.array(OperatorEntry.unwrap()) }).meta({ id: 'OperatorList' }));

export const InviteOperatorRequest = lazySchema(() =>
  z
    .strictObject({
      email: z.string().trim().toLowerCase().email().max(254),
      /** Default: the inviting operator's own scopes; never more than they hold. */
      scopes: z.array(ApiScope.unwrap()).max(SCOPES.length).optional(),
    })
    .meta({ id: 'InviteOperatorRequest' }));
export type InviteOperatorRequest = z.infer<typeof InviteOperatorRequest>;

export const OperatorInvitation = lazySchema(() =>
  z
    .object({
      invitation_id: z.string(),
      email: z.string(),
      scopes: z.array(ApiScope.unwrap()),
      expires_at: z.string(),
      /** The one-time token, in this answer only; the link carries it. */
      token: z.string(),
      accept_url: z.string(),
    })
    .meta({ id: 'OperatorInvitation' }));

export const AcceptInvitationRequest = lazySchema(() =>
  z
    .strictObject({ token: z.string().min(1).max(128), password: z.string().min(OPERATOR_LIMITS.passwordMin).max(OPERATOR_LIMITS.passwordMax) })
    .meta({ id: 'AcceptInvitationRequest' }));
export type AcceptInvitationRequest = z.infer<typeof AcceptInvitationRequest>;

export const TwoFactorEnrollment = lazySchema(() =>
  z
    .object({ totp_secret: z.string(), otpauth_uri: z.string() })
    .meta({ id: 'TwoFactorEnrollment' }));

export const TwoFactorReset = lazySchema(() =>
  z
    .object({
      reset_id: z.string(),
      operator_id: z.string(),
      requested_by: z.string(),
      status: z.enum(['pending', 'approved']),
      expires_at: z.string(),
      approved_by: z.string().nullable(),
    })
    .meta({ id: 'TwoFactorReset' }));
export type TwoFactorReset = z.infer<typeof TwoFactorReset>;

export const RemovedOperator = lazySchema(() =>
  z.object({ operator_id: z.string(), removed: z.literal(true) }).meta({ id: 'RemovedOperator' }));
