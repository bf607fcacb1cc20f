import { describe, expect, test } from 'vitest';
import { defineApiSuite } from './api-suite';

describe('API on SQLite', () => {
  defineApiSuite('sqlite');
});

describe('demo page', () => {
  test('GET /demo serves demo/index.html with the js_url and publishable key written in', async () => {
    const { createHarness } = await import('../test-support/harness');
    const { writeDemoPage } = await import('./api-suite');
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
