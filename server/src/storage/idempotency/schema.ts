import type { Mode } from '../../../../protocol/ids';



/** Idempotency-Key claims and stored responses (migrations 0006, 0018). */
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
  /** The instant that starts the ids the claim derives (migration 0018); null on claims of earlier versions. */
  ids_time: string | null;
  /** kernel/ids.ts IdsScheme; null: claims stored before migration 0026 (scheme 1). */
  ids_scheme: number | null;
}

/** The idempotency tables, as storage/schema.ts composes them into the database. */
export interface IdempotencySchema {
  idempotency_keys: IdempotencyKeysTable;
}
