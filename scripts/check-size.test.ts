import { describe, expect, test } from 'vitest';
import { frameInitialScripts } from './check-size';

describe('frameInitialScripts', () => {
  test('counts module entries and modulepreloads once each, not stylesheets', () => {
    const html = `
      <script type="module" crossorigin src="/frame/assets/index-a.js"></script>
      <link rel="modulepreload" crossorigin href="/frame/assets/vendor-b.js">
      <link rel="modulepreload" crossorigin href="/frame/assets/index-a.js">
      <link rel="stylesheet" href="/frame/assets/index-c.css">`;
    const files = frameInitialScripts(html).map((file) => file.split('/dist/frame/')[1]);
    expect(files).toEqual(['assets/index-a.js', 'assets/vendor-b.js']);
  });
});
