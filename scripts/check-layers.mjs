// The layering check of the server (docs/architecture.md): reads every relative import of server/src and protocol/
// and fails on an import circle, on an upward import (a room importing a room it may not), on a file that belongs
// to no room, and on production code importing test code. Type-only imports count: they tie the layout too.
// Usage: node scripts/check-layers.mjs [ROOT]   (ROOT defaults to the repository; tests point it at a temp tree)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The rooms, first match wins, and what each may import. `*` imports anything. */
export const ROOMS = [
  { room: 'protocol', match: /^protocol\//, may: ['protocol'] },
  { room: 'test-support', match: /^server\/src\/test-support\//, may: ['*'] },
  { room: 'kernel', match: /^server\/src\/kernel\//, may: ['kernel', 'protocol'] },
  { room: 'storage', match: /^server\/src\/storage\//, may: ['kernel', 'protocol', 'storage'] },
  { room: 'rails', match: /^server\/src\/rails\//, may: ['kernel', 'protocol', 'rails', 'vault'] },
  { room: 'vault', match: /^server\/src\/vault\//, may: ['kernel', 'protocol', 'storage', 'vault'] },
  { room: 'logger', match: /^server\/src\/logger\.ts$/, may: [] },
  { room: 'mail', match: /^server\/src\/mail\//, may: ['kernel', 'protocol', 'mail'] },
  { room: 'webhooks', match: /^server\/src\/webhooks\//, may: ['kernel', 'protocol', 'storage', 'webhooks', 'logger'] },
  { room: 'core', match: /^server\/src\/core\//, may: ['kernel', 'protocol', 'storage', 'rails', 'vault', 'webhooks', 'core'] },
  { room: 'http', match: /^server\/src\/http\//, may: ['kernel', 'protocol', 'storage', 'rails', 'vault', 'webhooks', 'logger', 'core', 'http'] },
  { room: 'top', match: /^server\/src\/(families\/|compose\.ts$|app\.ts$|main\.ts$|run\.ts$|start\.ts$|config\.ts$)/, may: ['*'] },
];

// Tests: unit and API tests (*.test.ts) and the long proofs of npm run test:reliability (*.reliability.ts).
const IS_TEST = /\.(test|reliability)\.tsx?$/;
const SOURCE = /\.(ts|tsx|mts)$/;
// import/export ... from '...', import '...', import('...'): every form the code uses, across line breaks.
const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

function walk(dir, out) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function resolveImport(fromFile, specifier, known) {
  const base = resolve(dirname(fromFile), specifier).replace(/\.(js|mjs|ts|tsx)$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, `${base}.mts`, join(base, 'index.ts')]) if (known.has(candidate)) return candidate;
  return undefined;
}

export function checkLayers(root) {
  const files = [...walk(join(root, 'server/src'), []), ...walk(join(root, 'protocol'), [])];
  const known = new Set(files);
  const rel = (file) => relative(root, file).split('\\').join('/');
  const roomOf = (file) => ROOMS.find((room) => room.match.test(rel(file)));
  const isTestCode = (file) => IS_TEST.test(file) || roomOf(file)?.room === 'test-support';
  const problems = [];
  const edges = new Map();
  let imports = 0;
  for (const file of files) {
    const room = roomOf(file);
    if (room === undefined && !isTestCode(file)) {
      problems.push(`${rel(file)} belongs to no room: add it to ROOMS in scripts/check-layers.mjs (docs/architecture.md)`);
      continue;
    }
    if (room === undefined) continue;
    const source = readFileSync(file, 'utf8');
    const targets = [];
    for (const match of source.matchAll(SPECIFIERS)) {
      const target = resolveImport(file, match[1], known);
      if (target === undefined) continue;
      imports += 1;
      targets.push(target);
      if (isTestCode(file)) continue;
      if (isTestCode(target)) {
        problems.push(`${rel(file)} imports test code ${rel(target)}`);
        continue;
      }
      const targetRoom = roomOf(target);
      if (targetRoom !== undefined && !room.may.includes('*') && !room.may.includes(targetRoom.room)) {
        problems.push(`upward import: ${rel(file)} (${room.room}) imports ${rel(target)} (${targetRoom.room}); ${room.room} may import ${room.may.join(', ') || 'nothing of ours'}`);
      }
    }
    if (!isTestCode(file)) edges.set(file, targets.filter((target) => !isTestCode(target)));
  }
  const circles = stronglyConnected(edges).filter((component) => component.length > 1);
  for (const circle of circles) problems.push(`circle: ${circle.map(rel).sort().join(' <-> ')}`);
  return { problems, files: files.length, imports, circles: circles.length, upward: problems.filter((p) => p.startsWith('upward')).length };
}

/** Tarjan's strongly connected components, iterative (deep import chains must not overflow the stack). */
function stronglyConnected(edges) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const components = [];
  for (const start of edges.keys()) {
    if (index.has(start)) continue;
    const work = [[start, 0]];
    index.set(start, next);
    low.set(start, next);
    next += 1;
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, i] = frame;
      const targets = edges.get(node) ?? [];
      if (i < targets.length) {
        frame[1] += 1;
        const target = targets[i];
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next);
          next += 1;
          stack.push(target);
          onStack.add(target);
          work.push([target, 0]);
        } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), index.get(target)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === index.get(node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        components.push(component);
      }
    }
  }
  return components;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const result = checkLayers(root);
  for (const problem of result.problems) console.log(problem);
  console.log(`layers: ${result.files} files, ${result.imports} imports, ${result.circles} circles, ${result.upward} upward imports`);
  process.exit(result.problems.length === 0 ? 0 : 1);
}
