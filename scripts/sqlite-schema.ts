/**
 * `npm run schema:sqlite`: writes server/src/storage/migrations/sqlite-schema.ts, the SQLite schema the migrations
 * leave, after a migration is added or changed (sqlite-schema.test.ts fails until it is).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sqliteSchemaModule } from '../server/src/storage/migrations/sqlite-schema-source';

const target = fileURLToPath(new URL('../server/src/storage/migrations/sqlite-schema.ts', import.meta.url));
writeFileSync(target, await sqliteSchemaModule());
console.log(`wrote ${target}`);
