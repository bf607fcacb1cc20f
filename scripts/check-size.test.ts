import { describe, expect, test } from 'vitest';
import { frameInitialBudget, frameInitialScripts } from './check-size';

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

describe('frameInitialBudget', () => {
  test('counts the served frame document (/frame/) with the scripts it loads before it renders', () => {
    const html = `<script type="module" crossorigin src="/frame/assets/boot-a.js"></script>
      <link rel="modulepreload" crossorigin href="/frame/assets/app-b.js">`;
    const budget = frameInitialBudget(html, 40 * 1024);
    expect(budget.served).toEqual(['/frame/', '/frame/assets/boot-a.js', '/frame/assets/app-b.js']);
    expect(budget.files.map((file) => file.split('/dist/frame/')[1])).toEqual(['index.html', 'assets/boot-a.js', 'assets/app-b.js']);
  });

  test('a frame document that names no scripts has no files, which the check reports as missing (a broken build)', () => {
    expect(frameInitialBudget('<!doctype html><title>frame</title>', 40 * 1024).files).toEqual([]);
  });
});
