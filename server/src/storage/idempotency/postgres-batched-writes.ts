import { sql, type Kysely } from 'kysely';
import { compiledOnce } from '../compiled-query';
import type { Database } from '../schema';

/** One request's claim, as the in-flight row's columns (sql-store.ts inFlightValues). */
export type ClaimValues = {
  accountId: string;
  mode: string;
  keyKind: string;
  key: string;
  fingerprint: string;
  method: string;
  path: string;
  claimToken: string;
  lockedAt: string;
  createdAt: string;
  expiresAt: string;
  idsTime: string | null;
};

/** One request's answer, for the in-flight row that `claimToken` holds. */
export type AnswerValues = {
  accountId: string;
  mode: string;
  keyKind: string;
  key: string;
  claimToken: string;
  responseStatus: number;
  responseHeaders: string;
  responseBody: string;
};

/** The most claims, and the most answers, one statement carries; the rest wait for the next one. */
const MOST_PER_STATEMENT = 64;

interface Pending<Values> {
  values: Values;
  settle: (written: boolean) => void;
  fail: (error: unknown) => void;
}

/**
 * The batch's answers and claims, each kind one JSON array parameter that json_to_recordset turns back into rows in
 * its order, so that a batch of any size is the one prepared statement (JSON.stringify is V8's own; pg's array
 * literals are escaped in JavaScript, string by string).
 */
type BatchValues = { answers: string; claims: string };

/**
 * Every claim and answer of one batch in one statement. Both turn synchronous_commit off for the statement's own
 * transaction, as writeWithoutSyncWait does (a written row sets it; a batch that writes nothing commits nothing).
 * The claim tokens returned say which claims went in and which answers found their claim: a token is a random
 * secret per request, so two claims of one key in one batch are told apart (the first in the batch wins).
 */
const batchQuery = compiledOnce<BatchValues>((db, value) => ({
  compile: () =>
    sql`with answered as (
  update idempotency_keys as k
  set status = 'done', response_status = a."responseStatus", response_headers = a."responseHeaders", response_body = a."responseBody"
  from json_to_recordset(${value('answers')}::json) as a("accountId" text, mode text, "keyKind" text, key text, "claimToken" text,
    "responseStatus" int, "responseHeaders" text, "responseBody" text)
  where k.account_id = a."accountId" and k.mode = a.mode and k.key_kind = a."keyKind" and k.idempotency_key = a.key
    and k.claim_token = a."claimToken" and k.status = 'in_flight'
  returning k.claim_token, set_config('synchronous_commit', 'off', true)
), claimed as (
  insert into idempotency_keys (account_id, mode, key_kind, idempotency_key, request_fingerprint, request_method, request_path,
    status, claim_token, locked_at, response_status, response_headers, response_body, created_at, expires_at, ids_time)
  select "accountId", mode, "keyKind", key, fingerprint, method, path, 'in_flight', "claimToken", "lockedAt", null, null, null,
    "createdAt", "expiresAt", "idsTime"
  from json_to_recordset(${value('claims')}::json) as c("accountId" text, mode text, "keyKind" text, key text, fingerprint text,
    method text, path text, "claimToken" text, "lockedAt" text, "createdAt" text, "expiresAt" text, "idsTime" text)
  on conflict do nothing
  returning claim_token, set_config('synchronous_commit', 'off', true)
)
select claim_token from answered union all select claim_token from claimed`.compile(db),
}));

/** Both keys of a claim or an answer, in the order every batch takes their row locks. */
const byKey = (a: { values: { key: string } }, b: { values: { key: string } }) => (a.values.key < b.values.key ? -1 : a.values.key > b.values.key ? 1 : 0);

/**
 * PostgreSQL: the Idempotency-Key claims and answers of concurrent requests, written together. Each is a statement
 * of its own otherwise, two round trips per keyed call on top of the operation's, and on a machine where waking
 * the database's process costs what a round trip costs, they made most of the key's overhead. As the group commit
 * does on SQLite, one statement is in flight at a time: the first write goes at once, and those that come while it
 * runs go together in the next.
 *
 * The lock order of a batch is its keys' order, so that two servers' batches claiming the same keys cannot wait on
 * each other. A batch that fails is written again one write per statement (`single`), so that one write's error
 * (or a deadlock with a statement of another kind) is that write's alone.
 */
export class PostgresIdempotencyWrites {
  readonly #claims: Pending<ClaimValues>[] = [];
  readonly #answers: Pending<AnswerValues>[] = [];
  #running = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly single: { claim(values: ClaimValues): Promise<boolean>; answer(values: AnswerValues): Promise<boolean> },
  ) {}

  /** True when the claim's row went in; false when the key had a row already. */
  claim(values: ClaimValues): Promise<boolean> {
    return this.#enqueue(this.#claims, values);
  }

  /** True when the claim that `values.claimToken` holds got its answer; false when it was taken over meanwhile. */
  answer(values: AnswerValues): Promise<boolean> {
    return this.#enqueue(this.#answers, values);
  }

  #enqueue<Values>(queue: Pending<Values>[], values: Values): Promise<boolean> {
    return new Promise<boolean>((settle, fail) => {
      queue.push({ values, settle, fail });
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#claims.length > 0 || this.#answers.length > 0) {
        const claims = this.#claims.splice(0, MOST_PER_STATEMENT).sort(byKey);
        const answers = this.#answers.splice(0, MOST_PER_STATEMENT).sort(byKey);
        await this.#write(claims, answers);
      }
    } finally {
      this.#running = false;
    }
  }

  async #write(claims: Pending<ClaimValues>[], answers: Pending<AnswerValues>[]): Promise<void> {
    if (claims.length + answers.length === 1) {
      await this.#writeEachAlone(claims, answers);
      return;
    }
    const values = { answers: JSON.stringify(answers.map((answer) => answer.values)), claims: JSON.stringify(claims.map((claim) => claim.values)) };
    let written: Set<string>;
    try {
      const result = await batchQuery<{ claim_token: string }>(this.db, values);
      written = new Set(result.rows.map((row) => row.claim_token));
    } catch {
      await this.#writeEachAlone(claims, answers);
      return;
    }
    for (const pending of [...claims, ...answers]) pending.settle(written.has(pending.values.claimToken));
  }

  /** Each write in a statement of its own, all at once (the pool spreads them), each settling its own caller. */
  async #writeEachAlone(claims: Pending<ClaimValues>[], answers: Pending<AnswerValues>[]): Promise<void> {
    const settleEach = <Values>(pending: Pending<Values>, write: Promise<boolean>) => write.then(pending.settle, pending.fail);
    await Promise.all([
      ...claims.map((claim) => settleEach(claim, this.single.claim(claim.values))),
      ...answers.map((answer) => settleEach(answer, this.single.answer(answer.values))),
    ]);
  }
}
