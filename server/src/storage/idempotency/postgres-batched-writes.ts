import { sql, type Kysely } from 'kysely';
import { compiledOnce } from '../compiled-query';
import { IDEMPOTENCY_BATCH_FUNCTION } from '../migrations/0021-idempotency-batch-function';
import type { Database } from '../schema';

/** One request's claim, as the in-flight row's columns (sql-store.ts claimValues). */
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
  idsScheme: number;
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

/** How claims and answers are written: one statement each, or batched (PostgresIdempotencyWrites). */
export interface ClaimAndAnswerWrites {
  /** True when the claim's row went in; false when the key had a row already. */
  claim(values: ClaimValues): Promise<boolean>;
  /** True when the claim that `values.claimToken` holds got its answer; false when it was taken over meanwhile. */
  answer(values: AnswerValues): Promise<boolean>;
}

/** The most claims, and the most answers, one statement carries; the rest wait for the next one. */
const MOST_PER_STATEMENT = 64;

interface Pending<Values> {
  values: Values;
  settle: (written: boolean) => void;
  fail: (error: unknown) => void;
}

/**
 * The batch as parameters, so that a batch of any size is the one prepared statement. The claims are one JSON array
 * (JSON.stringify is V8's own). The answers are one array per column (`answer:<name>`), since their update is a join
 * and the planner estimates an unnest at 10 rows, which keeps that join on the key's index once the table has a few
 * hundred rows; a JSON array's 100 rows kept it reading the whole table until it had thousands, and picking each
 * answer out of one JSON parameter parsed all of it again per row.
 */
type BatchValues = Record<string, unknown>;

/**
 * Every claim and answer of one batch in one statement: the function of migration 0021, which turns
 * synchronous_commit off for the statement's own transaction, as writeWithoutSyncWait does, and keeps its statements'
 * plans for the connection's life (prepared, the same statement was planned again at every execution). The claim
 * tokens returned say which claims went in and which answers found their claim: a token is a random secret per
 * request, so two claims of one key in one batch are told apart (the first in the batch wins).
 */
const batchQuery = compiledOnce<BatchValues>((db, value) => ({
  compile: () =>
    sql`select claim_token from ${sql.raw(IDEMPOTENCY_BATCH_FUNCTION)}(${value('claims')}::json,
  ${value('answer:accountId')}::text[], ${value('answer:mode')}::text[], ${value('answer:keyKind')}::text[], ${value('answer:key')}::text[],
  ${value('answer:claimToken')}::text[], ${value('answer:responseStatus')}::int[], ${value('answer:responseHeaders')}::text[],
  ${value('answer:responseBody')}::text[]) as claim_token`.compile(db),
}));

const ANSWER_COLUMNS: (keyof AnswerValues & string)[] = ['accountId', 'mode', 'keyKind', 'key', 'claimToken', 'responseStatus', 'responseHeaders', 'responseBody'];

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
export class PostgresIdempotencyWrites implements ClaimAndAnswerWrites {
  readonly #claims: Pending<ClaimValues>[] = [];
  readonly #answers: Pending<AnswerValues>[] = [];
  #running = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly single: ClaimAndAnswerWrites,
  ) {}

  claim(values: ClaimValues): Promise<boolean> {
    return this.#enqueue(this.#claims, values);
  }

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
    const values: BatchValues = { claims: JSON.stringify(claims.map((claim) => claim.values)) };
    for (const name of ANSWER_COLUMNS) values[`answer:${name}`] = answers.map((answer) => answer.values[name]);
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
