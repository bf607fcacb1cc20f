import { z } from 'zod';
import { lazySchema } from './lazy-schema';

/**
 * The one error vocabulary of Rail. Every error that crosses a boundary (REST response, runtime result) carries
 * one of these codes. Codes the interface spec names keep its meaning and status; the rest are ours, one meaning
 * per code (see docs/errors.md, which is checked against this table by a test).
 */
export const ERROR_CATALOG = {
  // Authentication and authorization (1xxx)
  ERR_1001: { status: 401, type: 'authentication_error', when: 'No API key was sent (api-key header or Authorization: Bearer).' },
  ERR_1002: { status: 401, type: 'authentication_error', when: 'The API key is malformed, unknown, revoked, or past its rotation grace window.' },
  ERR_1003: { status: 401, type: 'authentication_error', when: 'This key kind may not call this operation (for example a publishable key on a secret-key endpoint).' },
  ERR_1004: { status: 403, type: 'permission_error', when: 'The key or session lacks the scope the operation needs (api_keys:manage for key management; docs/scopes.md).' },
  ERR_1005: { status: 400, type: 'invalid_request', when: 'client_secret does not belong to this payment.' },
  ERR_1006: { status: 400, type: 'invalid_request', when: 'client_secret has expired (session_expiry, default 15 minutes).' },
  ERR_1007: { status: 422, type: 'invalid_request', when: 'client_secret was sent with a secret key; server-side calls must not carry it.' },
  ERR_1008: { status: 401, type: 'authentication_error', when: 'Operator login failed, or the session token is unknown or expired.' },
  ERR_1009: { status: 403, type: 'permission_error', when: 'The request origin may not call this endpoint (for example the vault outside the frame origin).' },
  ERR_1010: { status: 403, type: 'permission_error', when: 'The key is a managed credential (service_gateway): it cannot be rotated or revoked.' },
  ERR_1011: { status: 401, type: 'authentication_error', when: 'The two-factor code is wrong, outside the accepted window, or was used already.' },
  ERR_1012: { status: 401, type: 'two_factor_required', when: 'The operator has no two-factor enrolled yet: enrol with POST /v1/sessions/two-factor, then verify.' },
  ERR_1019: { status: 401, type: 'two_factor_required', when: 'Key-management mutation without a fresh two-factor verification (including any call with an API key).' },
  // Request validation (2xxx)
  ERR_2001: { status: 400, type: 'invalid_request', when: 'A required parameter is missing; field_name names it.' },
  ERR_2002: { status: 400, type: 'invalid_request', when: 'Malformed key id in the path.' },
  ERR_2003: { status: 400, type: 'invalid_request', when: 'A parameter has the wrong type, an unknown enum value, or breaks a limit; field_name names it.' },
  ERR_2004: { status: 400, type: 'invalid_request', when: 'An unknown parameter was sent; field_name names it.' },
  ERR_2005: { status: 400, type: 'invalid_request', when: 'The body is not valid JSON, or not a JSON object.' },
  ERR_2006: { status: 404, type: 'invalid_request', when: 'No route matches this path.' },
  ERR_2007: { status: 405, type: 'invalid_request', when: 'The route exists but not for this HTTP method.' },
  ERR_2008: { status: 415, type: 'invalid_request', when: 'The body has a content type the endpoint does not take (JSON bodies need application/json).' },
  ERR_2009: { status: 413, type: 'invalid_request', when: 'The body is larger than the endpoint allows.' },
  ERR_2010: { status: 400, type: 'invalid_request', when: 'The multipart/form-data body is malformed or truncated, or has an unexpected part.' },
  ERR_2011: { status: 431, type: 'invalid_request', when: 'The request headers are larger than the server reads.' },
  ERR_2012: { status: 400, type: 'invalid_request', when: 'The request is not valid HTTP (an unknown method, broken framing, or more bytes than its Content-Length).' },
  ERR_2013: { status: 408, type: 'invalid_request', when: 'The request did not arrive in time.' },
  ERR_2029: { status: 400, type: 'invalid_request', when: 'A raw card number was sent; cards are accepted only as payment_method_data.psp_token.' },
  // Provisioning (3xxx)
  ERR_3010: { status: 422, type: 'invalid_request', when: 'Account provisioning is not complete yet (the rail needs live credentials the account does not have).' },
  // Resource state and business rules (4xxx)
  ERR_4001: { status: 404, type: 'invalid_request', when: 'The payment does not exist for this account and mode.' },
  ERR_4002: { status: 409, type: 'invalid_request', when: 'payment_id already exists with a different request body.' },
  ERR_4003: { status: 400, type: 'invalid_request', when: 'The operation is not allowed in the payment\'s current status.' },
  ERR_4004: { status: 400, type: 'invalid_request', when: 'The payment method is not available for this payment (rail, currency or account).' },
  ERR_4005: { status: 400, type: 'invalid_request', when: 'Confirm lacks payment method details.' },
  ERR_4006: { status: 404, type: 'invalid_request', when: 'The customer does not exist for this account and mode.' },
  ERR_4007: { status: 404, type: 'invalid_request', when: 'The refund does not exist for this account and mode.' },
  ERR_4008: { status: 400, type: 'invalid_request', when: 'The refund amount exceeds what is left to refund on the payment (captured, minus refunds, minus what its opened, challenged, lost or accepted disputes hold).' },
  ERR_4009: { status: 409, type: 'invalid_request', when: 'refund_id already exists with a different request body.' },
  ERR_4010: { status: 404, type: 'invalid_request', when: 'The psp_token is unknown, used, expired, or bound to another payment.' },
  ERR_4011: { status: 422, type: 'invalid_request', when: 'A live refund was asked for; no enabled rail refunds live payments.' },
  ERR_4012: { status: 400, type: 'invalid_request', when: 'capture_method is not supported by the rail that takes this payment (enabled rails capture automatically).' },
  ERR_4014: { status: 400, type: 'invalid_request', when: 'amount_to_capture exceeds the payment\'s amount_capturable.' },
  ERR_4015: { status: 422, type: 'invalid_request', when: 'The rail refused the incremental authorization (the new total is above what the acquirer allows for this authorization).' },
  ERR_4016: { status: 400, type: 'invalid_request', when: 'The payment does not wait for external 3DS authentication (not confirmed with request_external_three_ds_authentication, or its authentication already ran).' },
  ERR_4017: { status: 400, type: 'invalid_request', when: 'complete_authorize before the payment\'s 3DS authentication succeeded (not authenticated yet, or its challenge is still open).' },
  ERR_4018: { status: 404, type: 'invalid_request', when: 'No 3DS decision rule set has this routing_id.' },
  ERR_4020: { status: 409, type: 'invalid_request', when: 'customer_id belonged to a deleted customer; the ids of deleted customers are not reused.' },
  ERR_4021: { status: 404, type: 'invalid_request', when: 'The ephemeral key does not exist for this account and mode (or was deleted).' },
  ERR_4013: { status: 400, type: 'invalid_request', when: 'A list cursor (starting_after or ending_before) names no payment of this account and mode.' },
  ERR_4030: { status: 400, type: 'invalid_request', when: 'The rail that took this payment does not refund payments in this mode on this account.' },
  ERR_4040: { status: 404, type: 'invalid_request', when: 'The requested resource does not exist.' },
  ERR_4050: { status: 404, type: 'invalid_request', when: 'The webhook event does not exist for this account and mode.' },
  ERR_4051: { status: 422, type: 'invalid_request', when: 'No webhook endpoint is configured for the account, so the event cannot be redelivered.' },
  ERR_4052: { status: 409, type: 'invalid_request', when: 'A delivery attempt of this webhook event is in progress; retry when it has finished.' },
  ERR_4053: { status: 400, type: 'invalid_request', when: 'cursor names no event of this list; pass the next_cursor of a previous page.' },
  ERR_4060: { status: 404, type: 'invalid_request', when: 'The dispute does not exist for this account and mode.' },
  ERR_4061: { status: 404, type: 'invalid_request', when: 'The file does not exist for this account and mode (or was deleted).' },
  ERR_4062: { status: 400, type: 'invalid_request', when: 'The operation is not allowed in the dispute\'s current status.' },
  ERR_4063: { status: 400, type: 'invalid_request', when: 'File content type not found: the bytes carry no signature of an accepted format (PDF, PNG, JPEG, GIF, TIFF, WebP).' },
  ERR_4064: { status: 400, type: 'invalid_request', when: 'Disputes cannot be raised: the payment\'s rail reports no disputes in this mode on this account (the simulator works in test mode only).' },
  ERR_4065: { status: 404, type: 'invalid_request', when: 'No evidence of this type is attached to the dispute.' },
  ERR_4066: { status: 400, type: 'invalid_request', when: 'The file belongs to another dispute than the one it is used for.' },
  ERR_4067: { status: 409, type: 'invalid_request', when: 'The dispute holds as many files as a dispute may (20); delete one it no longer needs first.' },
  ERR_4070: { status: 404, type: 'invalid_request', when: 'The test simulator page does not apply: unknown payment or challenge, or the payment no longer waits for this action.' },
  ERR_4071: { status: 404, type: 'invalid_request', when: 'The collection does not exist for this account and mode.' },
  ERR_4072: { status: 404, type: 'invalid_request', when: 'The settlement does not exist for this account and mode.' },
  ERR_4073: { status: 422, type: 'invalid_request', when: 'The settlement amount exceeds the available balance of that currency.' },
  ERR_4074: { status: 422, type: 'invalid_request', when: 'The settlement destination is not the account\'s saved, verified USDT wallet.' },
  ERR_4075: { status: 422, type: 'invalid_request', when: 'The account has no saved, verified USDT wallet to settle to.' },
  ERR_4080: { status: 404, type: 'invalid_request', when: 'The API key does not exist for this account (or is hidden: a managed credential).' },
  ERR_4081: { status: 409, type: 'invalid_request', when: 'The API key was already rotated or revoked; rotate its replacement instead.' },
  ERR_4082: { status: 404, type: 'invalid_request', when: 'The operator does not exist in this account.' },
  ERR_4083: { status: 409, type: 'invalid_request', when: 'The last operator of an account cannot be removed.' },
  ERR_4084: { status: 404, type: 'invalid_request', when: 'The invitation is unknown, was used already, or has expired.' },
  ERR_4085: { status: 409, type: 'invalid_request', when: 'An operator with this e-mail exists (in any account: an e-mail signs in to one account).' },
  ERR_4086: { status: 409, type: 'invalid_request', when: 'The two-factor reset is unknown, approved already, expired, or would be approved by the operator who asked for it.' },
  ERR_4087: { status: 409, type: 'invalid_request', when: 'Two-factor is enrolled already; an approved reset allows a new enrolment.' },
  ERR_4089: { status: 409, type: 'invalid_request', when: 'The account has a webhook endpoint for this mode already; update it or delete it first.' },
  ERR_4092: { status: 404, type: 'invalid_request', when: 'The webhook endpoint does not exist for this account.' },
  ERR_4093: { status: 409, type: 'invalid_request', when: "The webhook endpoint's previous secret still signs (a rotation's 24-hour overlap); rotate again after it ends." },
  ERR_4088: { status: 400, type: 'invalid_request', when: 'Off-session charge without a usable mandate.' },
  ERR_4100: { status: 404, type: 'invalid_request', when: 'The stored payment method does not exist for this account and mode.' },
  ERR_4101: { status: 404, type: 'invalid_request', when: 'The mandate does not exist for this account and mode.' },
  ERR_4102: { status: 400, type: 'invalid_request', when: 'The mandate is not active (already revoked), so it cannot be revoked again.' },
  ERR_4110: { status: 404, type: 'invalid_request', when: 'The subscription does not exist for this profile (none exists while no billing processor is connected).' },
  ERR_4111: { status: 400, type: 'invalid_request', when: 'The operation is not allowed in the subscription\'s current status.' },
  ERR_4090: { status: 409, type: 'idempotency_error', when: 'A request with this Idempotency-Key is still in flight.' },
  ERR_4091: { status: 422, type: 'idempotency_error', when: 'This Idempotency-Key was used with a different request.' },
  ERR_4094: { status: 400, type: 'invalid_request', when: 'Metadata update on an already-sent payment; the stored metadata is unchanged.' },
  ERR_4290: { status: 429, type: 'rate_limit_error', when: 'Too many requests; retry after the Retry-After header.' },
  // Server (5xxx)
  ERR_5000: { status: 500, type: 'api_error', when: 'An unexpected server error; nothing was changed.' },
  ERR_5005: { status: 503, type: 'api_error', when: 'Key service temporarily unavailable; retry.' },
  ERR_5006: { status: 503, type: 'api_error', when: 'The service is shutting down or the store is unavailable; retry.' },
  ERR_5007: { status: 503, type: 'api_error', when: 'The runtime script or the hosted frame has not been built on this server (run npm run build).' },
} as const satisfies Record<string, { status: number; type: string; when: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

/** The wire shape of every error: `{"error": {type, message, code, field_name?}}`. */
export const ApiErrorBody = lazySchema(() =>
  z.object({
    error: z.object({
      type: z.string(),
      message: z.string(),
      code: z.string(),
      field_name: z.string().optional(),
    }),
  }));export type ApiErrorBody = z.infer<typeof ApiErrorBody>;

/** The error object alone, as the runtime resolves it in `{ error }`. */
export type ApiErrorObject = ApiErrorBody['error'];
