/**
 * Shared helpers of the API suites (the *.api.test.ts files beside the routes): a live-mode key for mode-isolation tests,
 * the error-envelope assertion, and the app.request() wrapper with the default test secret key.
 */
import { expect } from 'vitest';
import { ERROR_CATALOG, type ErrorCode } from '../../../protocol/errors';
import { keyPrefix } from '../core/accounts/bootstrap';
import { DEFAULT_KEY_SCOPES } from '../../../protocol/api/keys';
import { hashSecret } from '../core/auth/secrets';
import type { Harness } from './harness';

type Json = Record<string, unknown>;

/**
 * Inserts a live-mode full secret key (`rail_full_live_` + 40 × `fill`) for the harness's account, to prove mode
 * isolation, and returns the plaintext key.
 */
export async function insertLiveSecretKey(h: Harness, options: { fill: string; keyId: string }): Promise<string> {
  const secretKey = `rail_full_live_${options.fill.repeat(40)}`;
  await h.store.apiKeys.insertApiKey({
    keyId: options.keyId,
    accountId: h.boot.account.accountId,
    mode: 'live',
    keyType: 'full',
    name: 'live test key',
    prefix: keyPrefix(secretKey),
    keyHash: hashSecret(secretKey),
    createdAt: new Date(),
    revokedAt: null,
    expiresAt: null,
    scopes: DEFAULT_KEY_SCOPES,
    replacesKeyId: null,
  });
  return secretKey;
}

export interface ApiErrorOptions {
  /** Also require the body to hold nothing but `error` (no other top-level key). */
  exactEnvelope?: boolean;
}

/**
 * Asserts an error response: the envelope's code and type from ERROR_CATALOG, the catalog's HTTP status, and
 * `field_name` when given. Returns the parsed body, its `error` object and the raw text.
 */
export async function expectApiErrorResponse(
  response: Response,
  code: ErrorCode,
  fieldName?: string,
  options: ApiErrorOptions = {},
): Promise<{ text: string; body: Json; error: Json }> {
  const text = await response.text();
  const body = JSON.parse(text) as Json;
  expect(body, text).toMatchObject({ error: { code, type: ERROR_CATALOG[code].type } });
  expect(response.status).toBe(ERROR_CATALOG[code].status);
  if (options.exactEnvelope) expect(Object.keys(body)).toEqual(['error']);
  const error = body['error'] as Json;
  if (fieldName !== undefined) expect(error['field_name']).toBe(fieldName);
  return { text, body, error };
}

/** expectApiErrorResponse, returning the `error` object of the envelope. */
export async function expectApiError(response: Response, code: ErrorCode, fieldName?: string, options: ApiErrorOptions = {}): Promise<Json> {
  return (await expectApiErrorResponse(response, code, fieldName, options)).error;
}

export interface ApiRequestOptions {
  /** The `api-key` header: the harness's test secret key when undefined, none when null. */
  key?: string | null;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (wins over body), with content-type application/json. */
  raw?: string;
  /** Extra headers; an `api-key` or `content-type` here wins over the defaults. */
  headers?: Record<string, string>;
}

/** A request through app.request() (no port), authenticated with the harness's test secret key by default. */
export async function apiRequest(h: Pick<Harness, 'app' | 'secretKey'>, method: string, path: string, options: ApiRequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? h.secretKey : options.key;
  if (key !== null) headers['api-key'] ??= key;
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  return h.app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) });
}

/** Asserts a 200 (the body is the failure message) and returns the parsed body. */
export async function expectOk<T = Record<string, unknown>>(response: Response): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as T;
}

/** apiRequest with each POST a second after the last on the harness clock, so a payment's outbox events sort by time. */
export function clockedApiRequest(h: Pick<Harness, 'app' | 'secretKey' | 'clock'>, method: string, path: string, options: ApiRequestOptions = {}): Promise<Response> {
  if (method === 'POST') h.clock.advance(1_000);
  return apiRequest(h, method, path, options);
}

/** The event types of a test-mode payment's outbox rows (under its own id), oldest first. */
export async function paymentEventTypes(h: Pick<Harness, 'db' | 'boot'>, paymentId: string): Promise<string[]> {
  const rows = await h.db
    .selectFrom('webhook_events')
    .select(['event_type'])
    .where('account_id', '=', h.boot.account.accountId)
    .where('mode', '=', 'test')
    .where('object_id', '=', paymentId)
    .orderBy('created_at')
    .orderBy('event_id')
    .execute();
  return rows.map((row) => row.event_type);
}
