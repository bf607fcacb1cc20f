/**
 * Writes sqlite-schema.ts (`npm run schema:sqlite`, scripts/sqlite-schema.ts): the schema every migration leaves on
 * SQLite, read back from a store they were applied to one by one, as the statements that create it again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../database';
import { MIGRATION_NAMES, migrateStepByStep } from './index';

interface SchemaObject {
  type: string;
  name: string;
  sql: string | null;
}

/** Tables before the indexes and triggers on them; each kind in the order it was made. */
const KIND_ORDER = ['table', 'index', 'trigger', 'view'];

/** The statements that create `db`'s schema again (SQLite's own objects and implicit indexes come with their tables). */
async function sqliteSchemaStatements(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<SchemaObject>`select type, name, sql from sqlite_master order by rowid`.execute(db);
  return rows
    .filter((row) => row.sql !== null && !row.name.startsWith('sqlite_'))
    .sort((a, b) => KIND_ORDER.indexOf(a.type) - KIND_ORDER.indexOf(b.type))
    .map((row) => row.sql!);
}

/** The text of sqlite-schema.ts for the migrations of this checkout. */
export async function sqliteSchemaModule(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'rail-sqlite-schema-'));
  const { db } = openDatabase({ sqliteFile: join(dir, 'rail.sqlite') });
  try {
    await migrateStepByStep(db as unknown as Kysely<unknown>);
    const statements = await sqliteSchemaStatements(db as unknown as Kysely<unknown>);
    return [
      '// Written by `npm run schema:sqlite` (storage/migrations/sqlite-schema-source.ts): the SQLite schema the migrations',
      "// below leave, which migrateToLatest gives an empty store in one transaction. Do not edit; sqlite-schema.test.ts",
      '// checks it against the migrations.',
      'export const SQLITE_SCHEMA: { migrations: readonly string[]; statements: readonly string[] } = {',
      '  migrations: [',
      ...MIGRATION_NAMES.map((name) => `    ${JSON.stringify(name)},`),
      '  ],',
      '  statements: [',
      ...statements.map((statement) => `    ${JSON.stringify(statement)},`),
      '  ],',
      '};',
      '',
    ].join('\n');
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
