import { sql, type Kysely } from 'kysely';
import { groupCommitOf, type Engine } from './database';
import type { SqliteGroupCommit } from './sqlite-group-commit';
import { migrateToLatest } from './migrations/index';
import type { Database } from './schema';
import type { Db } from './sql-rows';
import type { Store, Stores } from './stores';
import { accountsSqlStores } from './accounts/sql-store';
import { collectSqlStores } from './collect/sql-store';
import { customersSqlStores } from './customers/sql-store';
import { eventsSqlStores } from './events/sql-store';
import { idempotencySqlStores } from './idempotency/sql-store';
import { paymentsSqlStores } from './payments/sql-store';
import { refundsSqlStores } from './refunds/sql-store';
import { vaultSqlStores } from './vault/sql-store';
import { disputesSqlStores } from './disputes/sql-store';
import { filesSqlStores } from './files/sql-store';
import { recoverySqlStores } from './recovery/sql-store';
import { paymentMethodsSqlStores } from './payment-methods/sql-store';
import { mandatesSqlStores } from './mandates/sql-store';
import { subscriptionsSqlStores } from './subscriptions/sql-store';
import { operatorsSqlStores } from './operators/sql-store';
import { webhookEndpointsSqlStores } from './webhook-endpoints/sql-store';

/** Every family's SQL stores on one connection or transaction: one line per family. */
function storesFor(db: Db): Stores {
  return {
    ...accountsSqlStores(db),
    ...paymentsSqlStores(db),
    ...eventsSqlStores(db),
    ...customersSqlStores(db),
    ...refundsSqlStores(db),
    ...idempotencySqlStores(db),
    ...vaultSqlStores(db),
    ...disputesSqlStores(db),
    ...filesSqlStores(db),
    ...collectSqlStores(db),
    ...recoverySqlStores(db),
    ...paymentMethodsSqlStores(db),
    ...mandatesSqlStores(db),
    ...subscriptionsSqlStores(db),
    ...operatorsSqlStores(db),
    ...webhookEndpointsSqlStores(db),
  };
}

// The class exposes the stores of storesFor() as its own fields (declaration merging with the interface below).
export interface SqlStore extends Stores {}

/** The Kysely implementation of Store, on SQLite or PostgreSQL. */
export class SqlStore implements Store {
  readonly #db: Kysely<Database>;
  readonly #group: SqliteGroupCommit | undefined;
  #closed = false;

  constructor(
    db: Kysely<Database>,
    readonly engine: Engine,
  ) {
    this.#db = db;
    this.#group = groupCommitOf(db);
    Object.assign(this, storesFor(db));
  }

  /** Applies pending migrations. */
  async migrate(): Promise<void> {
    await migrateToLatest(this.#db as Kysely<unknown>);
  }

  async transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T> {
    const group = this.#group;
    if (group === undefined) return this.#db.transaction().execute((trx) => work(storesFor(trx)));
    let batch = 0;
    const result = await this.#db.transaction().execute((trx) => {
      batch = group.currentBatch();
      return work(storesFor(trx));
    });
    // Acknowledged only once durable (storage/sqlite-group-commit.ts).
    await group.durable(batch);
    return result;
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.#db);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#db.destroy();
  }
}
