import { describe, expect, test } from 'vitest';
import { writeDemoPage } from '../../../test-support/fixtures';
import { createHarness } from '../../../test-support/harness';

describe('demo page', () => {
  test('GET /demo serves demo/index.html with the js_url and publishable key written in', async () => {
    const h = await createHarness('sqlite', { demoPagePaths: [writeDemoPage()] });
    try {
      const response = await h.app.request('/demo');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await response.text();
      expect(html).toContain('src="http://127.0.0.1:8081/v1/"');
      expect(html).toContain(`Rail("${h.publishableKey}")`);
      expect(html).not.toContain('__RAIL_');
    } finally {
      await h.close();
    }
  });
});
