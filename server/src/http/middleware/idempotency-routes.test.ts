/**
 * Under an Idempotency-Key the core must get the request's derived ids (docs/idempotency.md "After a crash"), which
 * only coreDeps(c, deps) hands it: a route that passes `deps` itself to a core operation would create objects with
 * random ids, and a retry after a crash would create them again. This reads the route files for such calls.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';

const ROUTES = join(import.meta.dirname, '..', 'routes');
/** What takes the app's deps itself: middleware factories and helpers that read keys, sessions and limits. */
const TAKES_APP_DEPS = new Set(['authenticate', 'operatorSession', 'secretKeyOrOperatorSession', 'limitSubject', 'authenticateApiKey', 'cookieIsSecure', 'readUploadForm', 'callerAccountId', 'coreDeps']);
/**
 * Core operations whose created objects must not take a request's derived ids: the simulator's renewal tick renews
 * what the clock makes due, so a re-run would give one subscription's payment id to another (routes.ts says why).
 */
const RANDOM_IDS_BY_DESIGN = new Set(['renewDueSubscriptions']);
/** The demo merchant backend does not take the header (docs/idempotency.md "Where"). */
const WITHOUT_IDEMPOTENCY = new Set(['demo/routes.ts']);

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

test('every route hands the core coreDeps(c, deps), never deps itself', () => {
  const files = routeFiles(ROUTES);
  expect(files.length).toBeGreaterThan(10);
  const offenders = files
    .filter((file) => !WITHOUT_IDEMPOTENCY.has(relative(ROUTES, file)))
    .flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\b(\w+)\((?:c, )?deps\b(?!\.)/g)]
        .map((match) => match[1] ?? '')
        .filter((callee) => !TAKES_APP_DEPS.has(callee) && !RANDOM_IDS_BY_DESIGN.has(callee))
        .map((callee) => `${relative(ROUTES, file)}: ${callee}(deps, ...)`),
    );
  expect(offenders).toEqual([]);
});
