import { sql } from 'kysely';
import type { JsonObject } from '../../../../protocol/api/payments';
import { type Db, inScope, insertResult, iso } from '../sql-rows';
import { writeWithoutSyncWait } from '../write-without-sync-wait';
import type { RailLedgerKey, RecoveryLeaseKey } from './records';
import type { RailLedgerStore, RecoveryLeaseStore, RecoveryStores } from './store';

// A mapped copy of RailLedgerKey: a compiled statement's values need an index signature, which an interface does not give.
type RailAnswerValues = { [Name in keyof RailLedgerKey]: RailLedgerKey[Name] } & { answer: string; createdAt: string };

/**
 * The insert of a rail's answer; the first answer for a key stays. The ledger is the simulated rails' own memory (a
 * real rail keeps its answers on its side), so it need not be durable before Rail goes on: the payment's answer,
 * written next, is, and one sync of the WAL covers everything written before it (SQLite's group commit; PostgreSQL
 * flushes its WAL in order). The insert so commits without waiting for its own sync (writeWithoutSyncWait): one
 * durable wait fewer per confirm. A power loss before any later sync loses an answer nobody was told about, as the
 * rail had never received the call: the payment stays where its claim left it, and crash recovery asks the rail
 * again under the same reference.
 */
function insertRailAnswer(db: Db, value: (name: keyof RailAnswerValues & string) => never) {
  return db
    .insertInto('rail_ledger')
    .values({
      account_id: value('accountId'),
      mode: value('mode'),
      rail: value('rail'),
      operation: value('operation'),
      reference: value('reference'),
      answer: value('answer'),
      created_at: value('createdAt'),
    })
    .onConflict((oc) => oc.columns(['account_id', 'mode', 'rail', 'operation', 'reference']).doNothing());
}

const insertRailAnswerQuery = writeWithoutSyncWait<RailAnswerValues, 'rail_ledger'>(insertRailAnswer);

/** The Kysely implementation of RailLedgerStore (SQLite and PostgreSQL). */
export class SqlRailLedgerStore implements RailLedgerStore {
  readonly inRailStore = true;

  constructor(private readonly db: Db) {}

  async rememberRailAnswer(key: RailLedgerKey, answer: JsonObject, now: Date): Promise<JsonObject> {
    const inserted = await insertRailAnswerQuery(this.db, {
      accountId: key.accountId,
      mode: key.mode,
      rail: key.rail,
      operation: key.operation,
      reference: key.reference,
      answer: JSON.stringify(answer),
      createdAt: iso(now),
    });
    if (insertResult({ numInsertedOrUpdatedRows: inserted.numAffectedRows }) === 'inserted') return answer;
    const kept = await this.findRailAnswer(key);
    if (kept === undefined) throw new Error('rail ledger row missing after insert');
    return kept;
  }

  async findRailAnswer(key: RailLedgerKey): Promise<JsonObject | undefined> {
    const row = await this.db
      .selectFrom('rail_ledger')
      .select('answer')
      .where(inScope(key))
      .where('rail', '=', key.rail)
      .where('operation', '=', key.operation)
      .where('reference', '=', key.reference)
      .executeTakeFirst();
    return row === undefined ? undefined : (JSON.parse(row.answer) as JsonObject);
  }

  async listRailAnswers(key: Omit<RailLedgerKey, 'reference'>, referencePrefix: string): Promise<JsonObject[]> {
    // substr, not LIKE: `_`, in every attempt id, is a LIKE wildcard. The primary key's leading columns bound the scan.
    const rows = await this.db
      .selectFrom('rail_ledger')
      .select('answer')
      .where(inScope(key))
      .where('rail', '=', key.rail)
      .where('operation', '=', key.operation)
      .where(sql<string>`substr(reference, 1, ${referencePrefix.length})`, '=', referencePrefix)
      .orderBy('reference')
      .execute();
    return rows.map((row) => JSON.parse(row.answer) as JsonObject);
  }
}

/** The Kysely implementation of RecoveryLeaseStore (SQLite and PostgreSQL). */
export class SqlRecoveryLeaseStore implements RecoveryLeaseStore {
  constructor(private readonly db: Db) {}

  async takeRecoveryLease(key: RecoveryLeaseKey, until: Date, now: Date): Promise<boolean> {
    const row = await this.db
      .insertInto('recovery_leases')
      .values({ account_id: key.accountId, mode: key.mode, object_type: key.objectType, object_id: key.objectId, leased_until: iso(until) })
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'mode', 'object_type', 'object_id'])
          .doUpdateSet({ leased_until: iso(until) })
          .where('recovery_leases.leased_until', '<=', iso(now)),
      )
      .returning('object_id')
      .executeTakeFirst();
    return row !== undefined;
  }

  async dropRecoveryLease(key: RecoveryLeaseKey): Promise<void> {
    await this.db
      .deleteFrom('recovery_leases')
      .where(inScope(key))
      .where('object_type', '=', key.objectType)
      .where('object_id', '=', key.objectId)
      .execute();
  }
}

export function recoverySqlStores(db: Db): RecoveryStores {
  return { railLedger: new SqlRailLedgerStore(db), recoveryLeases: new SqlRecoveryLeaseStore(db) };
}
