/** /openapi.json against what the server does: which operations take a credential (docs/authorization.md). */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHarness, type Harness } from '../test-support/harness';
import { passesAuthentication, readAuthorizationTable } from '../test-support/authorization-table';

interface Operation {
  security?: unknown[];
  responses: Record<string, unknown>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

describe('/openapi.json', () => {
  let h: Harness;
  let document: Document;
  const authorization = readAuthorizationTable();
  const rowOf = (method: string, path: string) => authorization.rows.find((row) => row.route === `${method.toUpperCase()} ${path}`);

  beforeAll(async () => {
    h = await createHarness('sqlite');
    document = (await (await h.app.request('/openapi.json')).json()) as Document;
  });
  afterAll(async () => h?.close());

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ method, path, operation })));

  test('every operation that takes a key or an operator session declares it (security), and no other does', () => {
    const undeclared: string[] = [];
    const declaredButOpen: string[] = [];
    for (const { method, path, operation } of operations()) {
      const cells = rowOf(method, path)?.cells;
      if (cells === undefined) throw new Error(`no row for ${method} ${path} in docs/authorization.md`);
      const takesCredential = !passesAuthentication(cells['no key']);
      const declared = (operation.security?.length ?? 0) > 0;
      if (takesCredential && !declared) undeclared.push(`${method.toUpperCase()} ${path}`);
      if (declared && !takesCredential) declaredButOpen.push(`${method.toUpperCase()} ${path}`);
    }
    expect(undeclared).toEqual([]);
    expect(declaredButOpen).toEqual([]);
  });
});
