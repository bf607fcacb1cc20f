// The object-shape check of the server (docs/architecture.md, "Objects on hot paths"): fails on an object literal,
// inside a function of server/src's production code, that begins with a spread and then adds a key the spread
// object's type does not have. On Node 20's V8 such a literal gets a hidden class (map) of its own nearly every time
// it runs (992 maps for 1,000 objects in a probe), about 1 us per added key, and every function the objects later
// reach sees a new map each time and falls back to its slowest property lookups: in the create -> confirm path, three
// such literals cost the server some 10 % of its CPU per call (docs/benchmarks-reading.md, twenty-fourth session).
// A literal that begins with its own keys and spreads after them keeps one map, and so does one that only overrides
// keys its spread already has. Spreads of a type with an index signature (JSON from a request) are left alone: their
// keys are the caller's, one map each whatever the code does; so are literals marked "object-shapes: once per start"
// on the line before them, which run once per process.
// Usage: node scripts/check-object-shapes.mjs [ROOT]   (ROOT defaults to the repository; tests point it at a temp tree)
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const IS_TEST = /\.(test|reliability)\.tsx?$/;

function walk(dir, out) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (entry !== 'test-support') walk(path, out);
    } else if (entry.endsWith('.ts') && !entry.endsWith('.d.ts') && !IS_TEST.test(entry)) out.push(path);
  }
  return out;
}

const staticName = (name) =>
  ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) ? name.text : undefined;

/** Whether `node` runs inside a function (a module's top level runs once). */
function inFunction(node) {
  for (let parent = node.parent; parent !== undefined; parent = parent.parent) if (ts.isFunctionLike(parent)) return true;
  return false;
}

/** Whether a computed key's type is one or more string literals, each a key of the spread. */
function computedKeysAmong(checker, name, has) {
  if (!ts.isComputedPropertyName(name)) return false;
  const type = checker.getTypeAtLocation(name.expression);
  const literals = type.isUnion() ? type.types : [type];
  return literals.every((literal) => literal.isStringLiteral() && has(literal.value));
}

/** Literals that run once per process (at start) and say so: their shape costs nothing. */
const ONCE = /object-shapes: once per start/;

/** Whether the line before the one `node` starts on says so. */
function markedOnce(source, node) {
  const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
  if (line === 0) return false;
  return ONCE.test(source.text.slice(source.getPositionOfLineAndCharacter(line - 1, 0), source.getPositionOfLineAndCharacter(line, 0)));
}

/** The keys `literal` adds after its leading spread that the spread's type does not have, or [] if it adds none. */
function addedKeys(checker, literal) {
  const [first, ...rest] = literal.properties;
  const spreadType = checker.getTypeAtLocation(first.expression);
  if (spreadType.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return [];
  if (checker.getIndexInfosOfType(spreadType).length > 0) return [];
  const has = (key) => spreadType.getProperty(key) !== undefined;
  const added = [];
  for (const property of rest) {
    if (ts.isSpreadAssignment(property)) {
      const type = checker.getTypeAtLocation(property.expression);
      if (checker.getIndexInfosOfType(type).length > 0) continue;
      const members = type.isUnion() ? type.types.flatMap((member) => member.getProperties()) : type.getProperties();
      for (const member of members) if (!has(member.name)) added.push(member.name);
    } else if (property.name !== undefined) {
      const key = staticName(property.name);
      if (key !== undefined) {
        if (!has(key)) added.push(key);
      } else if (!computedKeysAmong(checker, property.name, has)) {
        added.push(property.name.getText());
      }
    }
  }
  return [...new Set(added)];
}

export function checkObjectShapes(root) {
  const files = walk(join(root, 'server', 'src'), []);
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
    customConditions: ['rail-source'],
  });
  const checker = program.getTypeChecker();
  const problems = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (source === undefined) continue;
    const visit = (node) => {
      if (ts.isObjectLiteralExpression(node) && node.properties.length > 1 && ts.isSpreadAssignment(node.properties[0]) && inFunction(node) && !markedOnce(source, node)) {
        const added = addedKeys(checker, node);
        if (added.length > 0) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          problems.push(`${relative(root, file)}:${line + 1}: begins with a spread and adds ${added.join(', ')}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return problems;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(fileURLToPath(import.meta.url), '..', '..'));
  const problems = checkObjectShapes(root);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`\n${problems.length} object literal(s) begin with a spread and add keys: write the keys first, or assign them (docs/architecture.md, "Objects on hot paths").`);
    process.exit(1);
  }
  console.log('object shapes: ok');
}
