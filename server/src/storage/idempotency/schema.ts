import type { Mode } from '../../../../protocol/ids';



/** Idempotency-Key claims and stored responses (migration 0006). */
export interface IdempotencyKeysTable {
  account_id: string;
  mode: Mode;
  key_kind: string;
  idempotency_key: string;
  request_fingerprint: string;
  request_method: string;
  request_path: string;
  /** in_flight | done */
  status: string;
  claim_token: string;
  locked_at: string;
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

/** The idempotency tables, as storage/schema.ts composes them into the database. */
export interface IdempotencySchema {
  idempotency_keys: IdempotencyKeysTable;
}
