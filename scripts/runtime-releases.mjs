// The archive of runtime releases (runtime/releases/): every released build's bytes as rail.<hash>.js and
// index.json listing {hash, integrity, released}, oldest first. The runtime holds no deployment value, so a build
// has one hash everywhere and a release stays valid after later deployments: the js listener keeps serving each
// archived release at {js_url}/v1/rail.<hash>.js (server/src/http/js-app.ts), so pinned pages keep working.
//
//   node scripts/runtime-releases.mjs stage [DIST [ARCHIVE]]   copy the archive into DIST/runtime/releases (npm run build)
//   node scripts/runtime-releases.mjs add [DIST [ARCHIVE]]     archive DIST/runtime/rail.js as a release (npm run release:runtime)
// Both check every archived file against its recorded hash and integrity first, and fail on a mismatch.
//
// `<hash>` is 16 hex digits of the SHA-384 of the bytes; the integrity is `sha384-<base64>` of the same digest.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const ARCHIVE = join(ROOT, 'runtime', 'releases');

/** The content hash (file name part) and SRI integrity of `bytes`. */
export function runtimeDigest(bytes) {
  const digest = createHash('sha384').update(bytes).digest();
  return { hash: digest.subarray(0, 8).toString('hex'), integrity: `sha384-${digest.toString('base64')}` };
}

export function readIndex(archive = ARCHIVE) {
  const path = join(archive, 'index.json');
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : [];
}

/** Checks every archived file against its entry; throws naming the first that does not match. */
export function verifyArchive(archive = ARCHIVE) {
  const entries = readIndex(archive);
  for (const entry of entries) {
    const file = join(archive, `rail.${entry.hash}.js`);
    if (!existsSync(file)) throw new Error(`runtime release ${entry.hash}: ${file} is missing`);
    const digest = runtimeDigest(readFileSync(file));
    if (digest.hash !== entry.hash || digest.integrity !== entry.integrity) {
      throw new Error(`runtime release ${entry.hash}: the bytes of ${file} hash to ${digest.hash} ${digest.integrity}`);
    }
  }
  return entries;
}

export function stage(dist, archive = ARCHIVE) {
  const entries = verifyArchive(archive);
  const target = join(dist, 'runtime', 'releases');
  mkdirSync(target, { recursive: true });
  for (const entry of entries) copyFileSync(join(archive, `rail.${entry.hash}.js`), join(target, `rail.${entry.hash}.js`));
  writeFileSync(join(target, 'index.json'), JSON.stringify(entries, null, 2) + '\n');
  return entries;
}

export function add(dist, archive = ARCHIVE, released = new Date().toISOString().slice(0, 10)) {
  const built = join(dist, 'runtime', 'rail.js');
  if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build first`);
  const bytes = readFileSync(built);
  const { hash, integrity } = runtimeDigest(bytes);
  const entries = verifyArchive(archive);
  const existing = entries.find((entry) => entry.hash === hash);
  if (existing) return { entry: existing, added: false };
  mkdirSync(archive, { recursive: true });
  writeFileSync(join(archive, `rail.${hash}.js`), bytes);
  const entry = { hash, integrity, released };
  writeFileSync(join(archive, 'index.json'), JSON.stringify([...entries, entry], null, 2) + '\n');
  return { entry, added: true };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, distArg, archiveArg] = process.argv.slice(2);
  const dist = distArg ?? join(ROOT, 'dist');
  const archive = archiveArg ?? ARCHIVE;
  if (command === 'stage') {
    const entries = stage(dist, archive);
    console.log(`staged ${entries.length} runtime release(s) into ${join(dist, 'runtime', 'releases')}`);
  } else if (command === 'add') {
    const { entry, added } = add(dist, archive, process.env['RAIL_RELEASE_DATE'] || undefined);
    console.log(added ? 'released the runtime build:' : 'the runtime build is already a release:');
    console.log(`| ${entry.released} | \`rail.${entry.hash}.js\` | \`${entry.integrity}\` |`);
    if (added) console.log('Add this row to the releases table of docs/runtime.md and commit runtime/releases/.');
  } else {
    console.error('usage: node scripts/runtime-releases.mjs stage|add [DIST [ARCHIVE]]');
    process.exit(2);
  }
}
