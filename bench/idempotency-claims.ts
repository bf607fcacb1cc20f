/**
 * What an Idempotency-Key costs SQLite itself, without the server's JavaScript: the claim (an insert into
 * idempotency_keys) and the answer (the update that stores the response), run straight on better-sqlite3 against
 * the migrated schema, in transactions of BATCH calls as the group commit batches them under load, with the
 * connection's pragmas (WAL, synchronous=NORMAL; the WAL sync is left out, as it runs off the event loop). The
 * variants alternate in rounds on fresh databases:
 *
 * - random keys: what clients send (a UUID v4 each), so every claim lands on another leaf of the key's index;
 * - time-ordered keys: the same claims with keys that begin with the time (a UUID v7 would), the insert then lands
 *   on the index's last leaves, which one COMMIT writes once for the whole batch;
 * - random keys with the answer: each batch also stores the previous batch's answers (a 1.5 KB body), as the server
 *   does (the answer waits for the operation's sync, and so lands in a later batch than its claim);
 * - the same, each claim and answer committed on its own: what the group commit did with a write marked
 *   NO_DURABLE_WAIT when no batch was open, until the twenty-third session (storage/sqlite-group-commit.ts);
 * - the answer in its claim's batch: each batch stores its own claims' answers, what a request would do if it wrote
 *   its claim, its operation and its answer before one wait for durability (docs/benchmarks-reading.md, thirty-first
 *   session: the same CPU, 0.12 WAL pages fewer per call).
 *
 * Prints the process's CPU time per call (user + system), the wall time of its COMMITs per call (which also holds
 * what the machine keeps it waiting; an autocommit's is inside its statement), the WAL pages written per call (the
 * checkpoints' frame counts), and the ratios to time-ordered claims.
 * Never part of the test run.
 *
 *   node --import tsx bench/idempotency-claims.ts [calls per round=100000] [batch=8] [rounds=3]
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase } from '../server/src/storage/database';
import { migrateToLatest } from '../server/src/storage/migrations';
import { median, tempDir } from './process-metrics';

const [callsArg = '100000', batchArg = '8', roundsArg = '3'] = process.argv.slice(2);
const CALLS = Number(callsArg);
const BATCH = Number(batchArg);
const ROUNDS = Number(roundsArg);
const ACCOUNT = 'acc_bench0000000000000000';

type Variant = 'random keys' | 'time-ordered keys' | 'random keys with the answer' | 'the same, each committed alone' | "the answer in its claim's batch";
const VARIANTS: Variant[] = ['time-ordered keys', 'random keys', 'random keys with the answer', 'the same, each committed alone', "the answer in its claim's batch"];

interface Result {
  usPerCall: number;
  commitUsPerCall: number;
  walPagesPerCall: number;
}

/** A file with Rail's schema (the migrations) and one account, closed again. */
async function migratedFile(path: string): Promise<void> {
  const { db } = openDatabase({ sqliteFile: path });
  await migrateToLatest(db as never);
  await sql`insert into accounts (account_id, slug, name, settings, created_at) values (${ACCOUNT}, 'bench', 'bench', '{}', ${new Date().toISOString()})`.execute(db);
  await db.destroy();
}

/** A key that begins with the time, as a UUID v7 does: 12 hex digits of milliseconds, then random. */
function timeOrderedKey(): string {
  return `${Date.now().toString(16).padStart(12, '0')}-${randomUUID().slice(13)}`;
}

async function run(variant: Variant): Promise<Result> {
  const dir = tempDir('rail-claims-');
  try {
    const file = join(dir.path, 'rail.sqlite');
    await migratedFile(file);
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Checkpoints only where this loop runs them (the checkpoint worker's part): their frame counts are the WAL
    // written, and their CPU time is in the figure as before.
    db.pragma('wal_autocheckpoint = 0');
    const claim = db.prepare(
      `insert into "idempotency_keys" ("account_id", "mode", "key_kind", "idempotency_key", "request_fingerprint", "request_method", "request_path", "status", "claim_token", "locked_at", "response_status", "response_headers", "response_body", "created_at", "expires_at", "ids_time") values (?, 'test', 'secret', ?, ?, 'POST', '/payments', 'in_flight', ?, ?, null, null, null, ?, ?, ?) on conflict do nothing`,
    );
    const answer = db.prepare(
      `update "idempotency_keys" set "status" = 'done', "response_status" = 200, "response_headers" = ?, "response_body" = ? where account_id = ? and mode = 'test' and "key_kind" = 'secret' and "idempotency_key" = ? and "claim_token" = ? and "status" = 'in_flight'`,
    );
    const body = JSON.stringify({ payment_id: 'pay_0000000000000000000', status: 'succeeded', padding: 'x'.repeat(1400) });
    const fingerprint = 'f'.repeat(64);
    let unanswered: { key: string; token: string }[] = [];
    let commitMs = 0;
    let walPages = 0;
    const checkpoint = () => {
      const [result] = db.pragma('wal_checkpoint(RESTART)') as { log: number }[];
      walPages += result?.log ?? 0;
    };
    const batched = variant !== 'the same, each committed alone';
    const cpuBefore = process.cpuUsage();
    for (let call = 0; call < CALLS; call += BATCH) {
      if (batched) db.exec('begin immediate');
      if (variant === 'random keys with the answer' || variant === 'the same, each committed alone') {
        for (const { key, token } of unanswered) answer.run('{"content-type":"application/json"}', body, ACCOUNT, key, token);
      }
      unanswered = [];
      for (let i = 0; i < BATCH; i += 1) {
        const key = variant === 'time-ordered keys' ? timeOrderedKey() : randomUUID();
        const token = randomUUID();
        const now = new Date().toISOString();
        claim.run(ACCOUNT, key, fingerprint, token, now, now, now, now);
        unanswered.push({ key, token });
      }
      if (variant === "the answer in its claim's batch") {
        for (const { key, token } of unanswered) answer.run('{"content-type":"application/json"}', body, ACCOUNT, key, token);
        unanswered = [];
      }
      if (batched) {
        const commitStarted = performance.now();
        db.exec('commit');
        commitMs += performance.now() - commitStarted;
      }
      // The checkpoint worker's part, here between batches: the WAL starts over instead of growing.
      if (call % 8000 === 0) checkpoint();
    }
    const cpu = process.cpuUsage(cpuBefore);
    checkpoint();
    db.close();
    return { usPerCall: (cpu.user + cpu.system) / CALLS, commitUsPerCall: (1000 * commitMs) / CALLS, walPagesPerCall: walPages / CALLS };
  } finally {
    dir.remove();
  }
}

const results = new Map<Variant, Result[]>(VARIANTS.map((variant) => [variant, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  for (const variant of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
    const result = await run(variant);
    results.get(variant)!.push(result);
    console.log(
      `round ${round} ${variant}: ${result.usPerCall.toFixed(1)} us CPU per call, COMMIT ${result.commitUsPerCall.toFixed(1)} us wall per call, ${result.walPagesPerCall.toFixed(2)} WAL pages per call`,
    );
  }
}
const ordered = median(results.get('time-ordered keys')!.map((r) => r.usPerCall));
console.log(`\nmedians, ${CALLS} calls a round in transactions of ${BATCH}, against time-ordered claims:`);
for (const [variant, list] of results) {
  const usPerCall = median(list.map((r) => r.usPerCall));
  const commit = median(list.map((r) => r.commitUsPerCall)).toFixed(1);
  const pages = median(list.map((r) => r.walPagesPerCall)).toFixed(2);
  console.log(`${variant}: ${usPerCall.toFixed(1)} us CPU per call (COMMIT ${commit} us wall; ${pages} WAL pages), ${(usPerCall / ordered).toFixed(2)}x`);
}
