import type { IdsScheme } from '../../kernel/ids';
import type { Scope } from '../../kernel/store-types';

/** Who an Idempotency-Key belongs to: the account and mode of the key, and the key kind (secret or publishable). */
export interface IdempotencyScope extends Scope {
  keyKind: string;
}

/** A response as the idempotency store keeps it: status, the headers that matter, body text. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One Idempotency-Key row: a claim while the first request runs, then its stored response. */
export interface IdempotencyKeyRecord extends IdempotencyScope {
  key: string;
  fingerprint: string;
  method: string;
  path: string;
  status: 'in_flight' | 'done';
  claimToken: string;
  lockedAt: Date;
  response: StoredResponse | null;
  createdAt: Date;
  expiresAt: Date;
  /**
   * The instant that starts the ids this claim's request derives (kernel/ids.ts derivedIds): the first claim's, kept
   * by a re-run after its holder died. Null on claims stored by versions that derived ids without it.
   */
  idsTime: Date | null;
  /** How the claim's request derives its ids from idsTime (kernel/ids.ts IdsScheme), kept by its re-runs as idsTime is. */
  idsScheme: IdsScheme;
}
