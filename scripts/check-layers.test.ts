import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { fileTrees } from './file-trees';

const SCRIPT = join(import.meta.dirname, 'check-layers.mjs');
const { tree, removeAll } = fileTrees('rail-layers-');

function check(root: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

const CLEAN = {
  'protocol/ids.ts': 'export type Mode = "test";\n',
  'server/src/kernel/clock.ts': "import type { Mode } from '../../../protocol/ids';\nexport const now = () => new Date();\n",
  'server/src/storage/payments/store.ts': "import { now } from '../../kernel/clock';\nexport const store = now;\n",
  'server/src/core/payments/confirm-payment.ts': "import { store } from '../../storage/payments/store';\nexport const confirm = store;\n",
  'server/src/http/routes/payments/routes.ts': "import {\n  confirm,\n} from '../../../core/payments/confirm-payment';\nexport const routes = confirm;\n",
  'server/src/app.ts': "import { routes } from './http/routes/payments/routes';\nexport const app = routes;\n",
};

afterEach(removeAll);

describe('scripts/check-layers.mjs', () => {
  test('a tree that follows the rooms passes, and so does this repository', () => {
    const clean = check(tree(CLEAN));
    expect(clean.output).toContain('layers: 6 files, 5 imports, 0 circles, 0 upward imports');
    expect(clean.status).toBe(0);
    const repository = check(join(import.meta.dirname, '..'));
    expect(repository.output, repository.output).toMatch(/0 circles, 0 upward imports/);
    expect(repository.status).toBe(0);
  });

  test('a planted circle fails and names both files; a type-only circle too', () => {
    const circle = check(tree({ ...CLEAN, 'server/src/core/payments/a.ts': "import { b } from './b';\nexport const a = 1;\n", 'server/src/core/payments/b.ts': "import { a } from './a';\nexport const b = 2;\n" }));
    expect(circle.status).toBe(1);
    expect(circle.output).toContain('circle: server/src/core/payments/a.ts <-> server/src/core/payments/b.ts');
    const typeOnly = check(tree({ ...CLEAN, 'server/src/core/auth/auth.ts': "import type { C } from './context';\nexport type A = C;\n", 'server/src/core/auth/context.ts': "import type { A } from './auth';\nexport type C = A;\n" }));
    expect(typeOnly.status).toBe(1);
    expect(typeOnly.output).toContain('1 circles');
  });

  test('an upward import fails and names it, through a static or a dynamic import', () => {
    const upward = check(tree({ ...CLEAN, 'server/src/storage/payments/bad.ts': "export { confirm } from '../../core/payments/confirm-payment';\n" }));
    expect(upward.status).toBe(1);
    expect(upward.output).toContain('upward import: server/src/storage/payments/bad.ts (storage) imports server/src/core/payments/confirm-payment.ts (core)');
    const dynamic = check(tree({ ...CLEAN, 'server/src/kernel/lazy.ts': "export const load = () => import('../http/routes/payments/routes');\n" }));
    expect(dynamic.status).toBe(1);
    expect(dynamic.output).toContain('upward import: server/src/kernel/lazy.ts (kernel)');
  });

  test('tests may import anything; production code may not import test code; every file needs a room', () => {
    const testUpward = check(tree({ ...CLEAN, 'server/src/storage/payments/store.test.ts': "import { app } from '../../app';\nexport const t = app;\n" }));
    expect(testUpward.status).toBe(0);
    const importsTests = check(tree({ ...CLEAN, 'server/src/test-support/harness.ts': 'export const h = 1;\n', 'server/src/core/payments/uses-harness.ts': "import { h } from '../../test-support/harness';\nexport const x = h;\n" }));
    expect(importsTests.status).toBe(1);
    expect(importsTests.output).toContain('server/src/core/payments/uses-harness.ts imports test code server/src/test-support/harness.ts');
    const homeless = check(tree({ ...CLEAN, 'server/src/somewhere/new.ts': 'export const n = 1;\n' }));
    expect(homeless.status).toBe(1);
    expect(homeless.output).toContain('server/src/somewhere/new.ts belongs to no room');
  });
});
