/**
 * What the JSON body parser refuses before any schema sees the body, on both engines: strings no store can keep as
 * sent. A lone UTF-16 surrogate (JSON `"\ud800"`) is kept by SQLite and turned into U+FFFD by PostgreSQL, so a read
 * would answer something else than the create answered, and the engines would differ.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiRequest, expectApiError } from '../../test-support/api-assertions';
import { forEachEngine } from '../../test-support/engines';
import { createHarness, type Harness } from '../../test-support/harness';

forEachEngine('JSON bodies', (engine) => {
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness(engine);
  });

  afterAll(async () => {
    await h?.close();
  });

  describe(`[${engine}] strings that are not well-formed UTF-16`, () => {
    test.each([
      ['a high surrogate alone, in a value', '{"amount": 100, "currency": "INR", "description": "a\\ud800b"}', 'description'],
      ['a low surrogate alone, in a nested value', '{"amount": 100, "currency": "INR", "metadata": {"note": "\\udc00"}}', 'metadata.note'],
      ['a high surrogate at the end', '{"amount": 100, "currency": "INR", "metadata": {"note": "x\\ud83d"}}', 'metadata.note'],
      ['the pair in the wrong order', '{"amount": 100, "currency": "INR", "description": "\\ude00\\ud83d"}', 'description'],
      ['a lone surrogate in a key', '{"amount": 100, "currency": "INR", "metadata": {"\\ud800": "v"}}', 'metadata'],
    ])('%s: ERR_2003 naming the field', async (_name, raw, field) => {
      const error = await expectApiError(await apiRequest(h, 'POST', '/payments', { raw }), 'ERR_2003', field);
      expect(error['message']).toMatch(/surrogate/);
    });

    test('every operation with a JSON body in /openapi.json refuses one (routes added later are covered)', async () => {
      const doc = (await (await h.app.request('/openapi.json')).json()) as {
        paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>;
      };
      const unchecked: string[] = [];
      let checked = 0;
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const [method, operation] of Object.entries(methods)) {
          if (operation.requestBody?.content?.['application/json'] === undefined) continue;
          const response = await apiRequest(h, method.toUpperCase(), path.replace(/\{[^}]+\}/g, 'x_1'), { raw: '{"\\ud800": 1}' });
          const { error } = (await response.json()) as { error: { code: string; field_name?: string } };
          // Operator-session routes refuse the secret key before reading a body.
          if (error.code.startsWith('ERR_1')) continue;
          checked++;
          if (error.code !== 'ERR_2003' || error.field_name !== 'body') unchecked.push(`${method.toUpperCase()} ${path}: ${error.code}`);
        }
      }
      expect(unchecked).toEqual([]);
      expect(checked).toBeGreaterThan(20);
    });

    test('a surrogate pair (an emoji sent as escapes) is kept as sent: the read answers what the create answered', async () => {
      const raw = '{"amount": 100, "currency": "INR", "description": "\\ud83d\\ude00", "metadata": {"\\ud83d\\ude00": "\\ud83d\\ude00"}}';
      const created = await apiRequest(h, 'POST', '/payments', { raw });
      expect(created.status, await created.clone().text()).toBe(200);
      const payment = (await created.json()) as { payment_id: string; description: string; metadata: Record<string, string> };
      expect(payment.description).toBe('\u{1F600}');
      expect(payment.metadata).toEqual({ '\u{1F600}': '\u{1F600}' });
      const read = (await (await apiRequest(h, 'GET', `/payments/${payment.payment_id}`)).json()) as typeof payment;
      expect(read.description).toBe(payment.description);
      expect(read.metadata).toEqual(payment.metadata);
    });
  });
});
