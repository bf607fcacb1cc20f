/**
 * Whether rows read earlier from some tables of a SQLite database may still be answered from memory: the API key
 * look-up of every call (storage/accounts/key-lookup-cache.ts) reads three tables that change only when keys,
 * accounts or profiles do. A generation number moves whenever they may have changed:
 *
 * - this process's connection is about to run a statement that writes one of them (the statement cache tells,
 *   storage/database.ts withStatementCache): from then until that write is committed or rolled back, nothing read
 *   is kept, since this connection reads its own uncommitted writes;
 * - that write was committed or rolled back (the group commit's COMMIT, or an autocommit): what was read before
 *   may hold what the rollback undid;
 * - another connection committed anything (SQLite's `PRAGMA data_version`, which tells a connection that another
 *   one, of this process or another, has committed since it last asked): another instance on the same file, or a
 *   key revoked by a tool.
 *
 * PostgreSQL has no such signal across instances, so nothing is kept there (multi-instance.test.ts revokes a key on
 * one instance and is refused by the other on the next request).
 */
import type SqliteDatabase from 'better-sqlite3';
import { writesAnyOf } from './accounts/key-lookup-cache';

export class SqliteTableWatch {
  #generation = 0;
  #uncommitted = false;
  #dataVersion: number;
  readonly #readDataVersion: () => number;
  /** Whether a statement writes a watched table (writesAnyOf); asked once per statement text. */
  readonly writesWatched: (sql: string) => boolean;

  constructor(sqlite: SqliteDatabase.Database, tables: readonly string[]) {
    const statement = sqlite.prepare('pragma data_version').pluck();
    this.#readDataVersion = () => statement.get() as number;
    this.#dataVersion = this.#readDataVersion();
    this.writesWatched = writesAnyOf(tables);
  }

  /** A statement that writes a watched table is about to run on this connection. */
  noteWrite(): void {
    this.#uncommitted = true;
    this.#generation += 1;
  }

  /** This connection's writes so far are committed or rolled back. */
  noteSettled(): void {
    if (!this.#uncommitted) return;
    this.#uncommitted = false;
    this.#generation += 1;
  }

  /**
   * The generation now, to compare with the one a read was kept under; undefined while this connection holds an
   * uncommitted write to a watched table (nothing read then may be kept).
   */
  generation(): number | undefined {
    const dataVersion = this.#readDataVersion();
    if (dataVersion !== this.#dataVersion) {
      this.#dataVersion = dataVersion;
      this.#generation += 1;
    }
    return this.#uncommitted ? undefined : this.#generation;
  }
}
