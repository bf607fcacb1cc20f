import { sql, type Kysely } from 'kysely';
import { committedTransaction, durableTransaction, type Committed, type Engine } from './database';
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
import { rateLimitsSqlStores } from './rate-limits/sql-store';

/** Every family's SQL stores on one connection or transaction: one line per family. */
const FAMILY_STORES = [
  accountsSqlStores,
  paymentsSqlStores,
  eventsSqlStores,
  customersSqlStores,
  refundsSqlStores,
  idempotencySqlStores,
  vaultSqlStores,
  disputesSqlStores,
  filesSqlStores,
  collectSqlStores,
  recoverySqlStores,
  paymentMethodsSqlStores,
  mandatesSqlStores,
  subscriptionsSqlStores,
  operatorsSqlStores,
  webhookEndpointsSqlStores,
  rateLimitsSqlStores,
] as const;

type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;
/** A compile error unless the families above make every store of Stores. */
type EveryStoreHasAFamily<T extends true> = T;
export type SqlFamiliesMakeEveryStore = EveryStoreHasAFamily<UnionToIntersection<ReturnType<(typeof FAMILY_STORES)[number]>> extends Stores ? true : false>;

function storesFor(db: Db): Stores {
  return Object.assign({}, ...FAMILY_STORES.map((family) => family(db))) as Stores;
}

/**
 * The stores of one transaction, each family's made when the transaction first uses one of them: a transaction
 * touches two or three families, and making all sixteen families' stores per transaction showed in the profile of
 * a payment. Each store is a property getter on the prototype, learned once from each family's stores (whose
 * constructors only keep the connection).
 */
class TransactionStores {
  readonly made = new Map<(db: Db) => object, Record<string, unknown>>();
  constructor(readonly db: Db) {}
}
for (const family of FAMILY_STORES as readonly ((db: Db) => object)[]) {
  for (const name of Object.keys(family(undefined as unknown as Db))) {
    Object.defineProperty(TransactionStores.prototype, name, {
      get(this: TransactionStores) {
        let stores = this.made.get(family);
        if (stores === undefined) {
          stores = family(this.db) as Record<string, unknown>;
          this.made.set(family, stores);
        }
        return stores[name];
      },
      enumerable: true,
    });
  }
}

function transactionStores(db: Db): Stores {
  return new TransactionStores(db) as unknown as Stores;
}

// The class exposes the stores of storesFor() as its own fields (declaration merging with the interface below).
export interface SqlStore extends Stores {}

/** The Kysely implementation of Store, on SQLite or PostgreSQL. */
export class SqlStore implements Store {
  readonly #db: Kysely<Database>;
  #closed = false;

  constructor(
    db: Kysely<Database>,
    readonly engine: Engine,
  ) {
    this.#db = db;
    Object.assign(this, storesFor(db));
  }

  /** Applies pending migrations. */
  async migrate(): Promise<void> {
    await migrateToLatest(this.#db as Kysely<unknown>);
  }

  transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T> {
    return durableTransaction(this.#db, (trx) => work(transactionStores(trx)));
  }

  transactionDurableLater<T>(work: (tx: Stores) => Promise<T>): Promise<Committed<T>> {
    return committedTransaction(this.#db, (trx) => work(transactionStores(trx)));
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
