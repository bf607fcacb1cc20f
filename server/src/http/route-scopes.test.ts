/**
 * The scope table: server/src/http/route-scopes.ts covers every route the app registers, docs/scopes.md says the
 * same, and each scoped route refuses a key without its scope (ERR_1004) and lets a key with only that scope past the
 * scope check. Decided in the authentication middleware, above the store, so SQLite is enough.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_KEY_SCOPES, type ApiScope } from '../../../protocol/api/keys';
import { issueApiKey } from '../core/api-keys/issue-api-key';
import { apiRequest } from '../test-support/api-assertions';
import { createHarness, type Harness } from '../test-support/harness';
import { ROUTE_SCOPES, routeScope } from './route-scopes';

function readDocTable(): Map<string, string> {
  const text = readFileSync(resolve(__dirname, '../../../docs/scopes.md'), 'utf8');
  const section = text.slice(text.indexOf('## Which scope each route needs'));
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  return new Map(rows.map((line) => line.split('|').slice(1, 3).map((cell) => cell.trim().replace(/`/g, '')) as [string, string]));
}

/** Which key kind a route takes, from the authorization matrix: a secret key, else a publishable key, else none. */
function keyKindOf(route: string): 'secret' | 'publishable' | undefined {
  const text = readFileSync(resolve(__dirname, '../../../docs/authorization.md'), 'utf8');
  const row = text.split('\n').find((line) => line.startsWith(`| \`${route}\` |`));
  const cells = row?.split('|').slice(2, -1).map((cell) => cell.trim()) ?? [];
  if (cells[4] === 'allowed') return 'secret';
  if (cells[6] === 'allowed' || cells[7] === 'allowed') return 'publishable';
  return undefined;
}

describe('scopes per route', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite');
  });
  afterAll(async () => h?.close());

  const keyWith = async (keyType: 'full' | 'open', scopes: readonly ApiScope[]) => {
    const { plaintext, record } = issueApiKey(h.core.ids, {
      accountId: h.boot.account.accountId,
      mode: 'test',
      keyType,
      name: `scoped ${scopes.join(' ')}`,
      scopes,
      replacesKeyId: null,
      createdAt: h.clock.now(),
    });
    await h.store.apiKeys.insertApiKey(record);
    return plaintext;
  };

  test('routeScope answers the table entry of each registered route, on a first call and on later ones, and none for an unknown one', () => {
    const routes = h.app.routes.filter((route) => route.method !== 'ALL');
    for (let round = 0; round < 2; round += 1) {
      for (const { method, path } of routes) expect(routeScope(method, path)).toBe(ROUTE_SCOPES[`${method} ${path.replace(/:([a-z_]+)/g, '{$1}')}`]);
    }
    expect(routeScope('POST', '/payments')).toBe('payments:write');
    expect(routeScope('DELETE', '/payments')).toBeUndefined();
    expect(routeScope('DELETE', '/payments')).toBeUndefined();
    expect(routeScope('GET', '/no/such/:route')).toBeUndefined();
  });

  test('the code table has one entry per route of the app, and docs/scopes.md lists exactly its scoped routes', () => {
    const routes = h.app.routes.filter((route) => route.method !== 'ALL').map((route) => `${route.method} ${route.path.replace(/:([a-z_]+)/g, '{$1}')}`);
    expect(Object.keys(ROUTE_SCOPES).sort()).toEqual([...new Set(routes)].sort());
    const scoped = Object.entries(ROUTE_SCOPES).filter((entry): entry is [string, ApiScope] => entry[1] !== null);
    expect([...readDocTable().entries()].sort()).toEqual(scoped.sort());
  });

  const scoped = Object.entries(ROUTE_SCOPES).filter((entry): entry is [string, ApiScope] => entry[1] !== null);
  for (const [route, scope] of scoped) {
    test(`${route} needs ${scope}`, async () => {
      const kind = keyKindOf(route);
      if (kind === undefined) return; // reached by ephemeral keys only, which carry no scopes
      const keyType = kind === 'secret' ? 'full' : 'open';
      const [method, template] = route.split(' ') as [string, string];
      const path = template.replace(/\{([a-z_]+)\}/g, (_, name: string) => `unknown_${name}`);
      const send = async (key: string) => {
        const response = await apiRequest(h, method, path, { key, headers: { origin: 'http://127.0.0.1:8081' }, ...(method === 'GET' ? {} : { body: {} }) });
        return ((await response.json()) as { error?: { code?: string } }).error?.code;
      };
      expect(await send(await keyWith(keyType, DEFAULT_KEY_SCOPES.filter((candidate) => candidate !== scope)))).toBe('ERR_1004');
      expect(await send(await keyWith(keyType, [scope]))).not.toBe('ERR_1004');
    });
  }
});
