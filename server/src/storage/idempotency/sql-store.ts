import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../schema';
import type { IdempotencyKeyRecord, IdempotencyScope, StoredResponse } from './records';
import type { IdsScheme } from '../../kernel/ids';
import type { InsertResult } from '../../kernel/store-types';
import type { IdempotencyKeysTable } from './schema';
import { type Db, inScope, insertResult, isPostgres, iso } from '../sql-rows';
import { groupCommitOf } from '../database';
import { writeWithoutSyncWait } from '../write-without-sync-wait';
import { type AnswerValues, type ClaimAndAnswerWrites, type ClaimValues, PostgresIdempotencyWrites } from './postgres-batched-writes';
import type { IdempotencyStore, IdempotencyStores } from './store';

/**
 * A released claim's locked_at: its lease has run out, so the retry takes it over as it takes over a dead holder's
 * claim, with the claim's ids (a version that only knew deleted claims reads it the same way).
 */
const RELEASED_LOCK_TIME = new Date(0);

/** A fresh in-flight claim: the request it belongs to, no response yet. Shared by the first claim and a reclaim. */
function inFlightColumns(record: IdempotencyKeyRecord) {
  return {
    request_fingerprint: record.fingerprint,
    request_method: record.method,
    request_path: record.path,
    status: 'in_flight',
    claim_token: record.claimToken,
    locked_at: iso(record.lockedAt),
    response_status: null,
    response_headers: null,
    response_body: null,
    created_at: iso(record.createdAt),
    expires_at: iso(record.expiresAt),
    ids_time: record.idsTime === null ? null : iso(record.idsTime),
    ids_scheme: record.idsScheme,
  } as const;
}

/** A claim as the values of insertClaimQuery. */
function claimValues(record: IdempotencyKeyRecord): ClaimValues {
  // A first claim's lock, creation and ids times are one instant: its text is made once (toISOString at every keyed call).
  const lockedAt = iso(record.lockedAt);
  const atLock = (date: Date) => (date.getTime() === record.lockedAt.getTime() ? lockedAt : iso(date));
  return {
    accountId: record.accountId,
    mode: record.mode,
    keyKind: record.keyKind,
    key: record.key,
    fingerprint: record.fingerprint,
    method: record.method,
    path: record.path,
    claimToken: record.claimToken,
    lockedAt,
    createdAt: atLock(record.createdAt),
    expiresAt: iso(record.expiresAt),
    idsTime: record.idsTime === null ? null : atLock(record.idsTime),
    idsScheme: record.idsScheme,
  };
}

function insertClaim(db: Db, value: (name: keyof ClaimValues & string) => never) {
  return db
    .insertInto('idempotency_keys')
    .values({
      account_id: value('accountId'),
      mode: value('mode'),
      key_kind: value('keyKind'),
      idempotency_key: value('key'),
      request_fingerprint: value('fingerprint'),
      request_method: value('method'),
      request_path: value('path'),
      status: 'in_flight',
      claim_token: value('claimToken'),
      locked_at: value('lockedAt'),
      response_status: null,
      response_headers: null,
      response_body: null,
      created_at: value('createdAt'),
      expires_at: value('expiresAt'),
      ids_time: value('idsTime'),
      ids_scheme: value('idsScheme'),
    })
    .onConflict((oc) => oc.doNothing());
}

// The two statements of every request with a key, compiled once (storage/compiled-query.ts), and neither waits for
// its own sync. The claim only keeps concurrent repeats out: the request goes on as soon as the row is in, and waits
// for its durability before it answers (the operation's own commit is usually the sync that covers it). The answer
// is written before the response goes out, so a repeat finds it; a power loss before the next sync (or on SQLite a
// dead process before the batch it opened or joined commits) leaves the key in flight, as a crash between the
// operation and its answer does, and the retry runs the request again with the same derived ids (docs/idempotency.md,
// "After a crash"). On PostgreSQL, those of concurrent requests go together in one statement
// (postgres-batched-writes.ts).
const insertClaimQuery = writeWithoutSyncWait<ClaimValues, 'idempotency_keys'>(insertClaim);

const completeQuery = writeWithoutSyncWait<AnswerValues, 'idempotency_keys'>((db, value) =>
  db
    .updateTable('idempotency_keys')
    .set({ status: 'done', response_status: value('responseStatus'), response_headers: value('responseHeaders'), response_body: value('responseBody') })
    .where(inScope({ accountId: value('accountId'), mode: value('mode') }))
    .where('key_kind', '=', value('keyKind'))
    .where('idempotency_key', '=', value('key'))
    .where('claim_token', '=', value('claimToken'))
    .where('status', '=', 'in_flight'),
);

/** Null: a claim stored before migration 0026. A scheme this version does not know is a later version's claim. */
function idsSchemeOf(stored: number | null): IdsScheme {
  if (stored === null || stored === 1) return 1;
  if (stored === 2) return 2;
  throw new Error(`idempotency claim of an unknown ids_scheme ${stored}: stored by a later version`);
}

function toRecord(row: Selectable<IdempotencyKeysTable>): IdempotencyKeyRecord {
  return {
    accountId: row.account_id,
    mode: row.mode,
    keyKind: row.key_kind,
    key: row.idempotency_key,
    fingerprint: row.request_fingerprint,
    method: row.request_method,
    path: row.request_path,
    status: row.status === 'done' ? 'done' : 'in_flight',
    claimToken: row.claim_token,
    lockedAt: new Date(row.locked_at),
    response:
      row.response_status === null
        ? null
        : {
            status: Number(row.response_status),
            headers: JSON.parse(row.response_headers ?? '{}') as Record<string, string>,
            body: row.response_body ?? '',
          },
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    idsTime: row.ids_time === null ? null : new Date(row.ids_time),
    idsScheme: idsSchemeOf(row.ids_scheme),
  };
}

/** A claim and an answer, one statement each. */
const singleWrites = (db: Db): ClaimAndAnswerWrites => ({
  claim: async (values: ClaimValues) => insertResult({ numInsertedOrUpdatedRows: (await insertClaimQuery(db, values)).numAffectedRows }) === 'inserted',
  answer: async (values: AnswerValues) => ((await completeQuery(db, values)).numAffectedRows ?? 0n) > 0n,
});

/** PostgreSQL outside a transaction: the batched writes of the database (one per Kysely instance). */
const batchedWrites = new WeakMap<Db, PostgresIdempotencyWrites>();

/** The Kysely implementation of IdempotencyStore (SQLite and PostgreSQL). */
export class SqlIdempotencyStore implements IdempotencyStore {
  #writes: ClaimAndAnswerWrites | undefined;

  constructor(private readonly db: Db) {}

  /** How claims and answers are written: batched on PostgreSQL outside a transaction, else one statement each. */
  get #claimsAndAnswers() {
    if (this.#writes === undefined) {
      const single = singleWrites(this.db);
      if (this.db.isTransaction || !isPostgres(this.db)) this.#writes = single;
      else {
        let batched = batchedWrites.get(this.db);
        if (batched === undefined) {
          batched = new PostgresIdempotencyWrites(this.db as Kysely<Database>, single);
          batchedWrites.set(this.db, batched);
        }
        this.#writes = batched;
      }
    }
    return this.#writes;
  }

  async insertClaim(record: IdempotencyKeyRecord): Promise<{ result: InsertResult; durable: Promise<void> }> {
    const inserted = await this.#claimsAndAnswers.claim(claimValues(record));
    const group = groupCommitOf(this.db as Kysely<Database>);
    const durable = group === undefined ? Promise.resolve() : group.writtenSoFarDurable();
    // Rejections are the caller's to see when it awaits `durable`; never an unhandled rejection meanwhile.
    durable.catch(() => undefined);
    return { result: inserted ? 'inserted' : 'duplicate', durable };
  }

  async findKey(scope: IdempotencyScope, key: string): Promise<IdempotencyKeyRecord | undefined> {
    const row = await this.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where(inScope(scope))
      .where('key_kind', '=', scope.keyKind)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async reclaim(record: IdempotencyKeyRecord, leaseCutoff: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('idempotency_keys')
      .set(inFlightColumns(record))
      .where('account_id', '=', record.accountId)
      .where('mode', '=', record.mode)
      .where('key_kind', '=', record.keyKind)
      .where('idempotency_key', '=', record.key)
      .where((eb) =>
        eb.or([
          eb('expires_at', '<=', iso(record.lockedAt)),
          eb.and([eb('status', '=', 'in_flight'), eb('locked_at', '<=', iso(leaseCutoff))]),
        ]),
      )
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  complete(scope: IdempotencyScope, key: string, claimToken: string, response: StoredResponse): Promise<boolean> {
    return this.#claimsAndAnswers.answer({
      accountId: scope.accountId,
      mode: scope.mode,
      keyKind: scope.keyKind,
      key,
      claimToken,
      responseStatus: response.status,
      responseHeaders: JSON.stringify(response.headers),
      responseBody: response.body,
    });
  }

  async release(scope: IdempotencyScope, key: string, claimToken: string): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ locked_at: iso(RELEASED_LOCK_TIME) })
      .where(inScope(scope))
      .where('key_kind', '=', scope.keyKind)
      .where('idempotency_key', '=', key)
      .where('claim_token', '=', claimToken)
      .where('status', '=', 'in_flight')
      .execute();
  }

  async deleteExpired(now: Date): Promise<number> {
    const result = await this.db.deleteFrom('idempotency_keys').where('expires_at', '<=', iso(now)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** The idempotency stores on one connection or transaction. */
export function idempotencySqlStores(db: Db): IdempotencyStores {
  return { idempotency: new SqlIdempotencyStore(db) };
}
