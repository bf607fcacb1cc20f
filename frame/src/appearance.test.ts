import { describe, expect, test } from 'vitest';
import { appearanceCss, applyFonts, fontFaceUrl, isFontUrl, isSafeCssValue } from './appearance';

describe('appearanceCss', () => {
  test('maps variables to custom properties on :root', () => {
    expect(appearanceCss({ variables: { colorPrimary: '#0a0', borderRadius: '2px' } })).toBe(
      ':root{--rail-color-primary:#0a0;--rail-border-radius:2px}',
    );
  });

  test('starts from the theme and lets variables override it', () => {
    const css = appearanceCss({ theme: 'night', variables: { colorText: 'white' } });
    expect(css).toContain('--rail-color-background:#30313d');
    expect(css).toContain('--rail-color-text:white');
  });

  test('writes allowed rules with kebab-case properties', () => {
    expect(appearanceCss({ rules: { '.Input:focus': { borderColor: 'red', boxShadow: 'none' } } })).toBe(
      '.Input:focus{border-color:red;box-shadow:none}',
    );
  });

  test.each([
    ['an unknown selector', { rules: { 'body': { color: 'red' } } }],
    ['a descendant selector', { rules: { '.Input .x': { color: 'red' } } }],
    ['an unknown property', { rules: { '.Input': { position: 'fixed' } } }],
    ['a value that loads a URL', { rules: { '.Input': { backgroundColor: 'url(https://evil.test/x)' } } }],
    // colorBackground lands in `background:`, where image-set() with a bare string fetches an image.
    ['a variable that loads an image without url()', { variables: { colorBackground: 'image-set("https://evil.test/x" 1x)' } }],
    ['a prefixed image-set()', { variables: { colorBackground: '-webkit-image-set("https://evil.test/x" 1x)' } }],
    ['a src() value', { rules: { '.Input': { border: 'src("https://evil.test/x")' } } }],
    ['a value that escapes its declaration', { variables: { colorText: 'red;} body{display:none' } }],
    ['an unknown variable', { variables: { zIndex: '9' } as never }],
  ])('drops %s', (_name, appearance) => {
    expect(appearanceCss(appearance)).toBe('');
  });
});

describe('isSafeCssValue', () => {
  test.each([
    ['#fff', true],
    ['rgb(0 0 0 / 0.5)', true],
    ['"Inter", sans-serif', true],
    ['expression(alert(1))', false],
    ['@import "x"', false],
    ['a\\62 c', false],
    ['image-set("https://evil.test/x" 1x)', false],
    ['linear-gradient(#fff, #000)', true],
    ['x'.repeat(201), false],
  ])('%s is safe: %s', (value, safe) => {
    expect(isSafeCssValue(value)).toBe(safe);
  });
});

describe('fonts', () => {
  test('accept https anywhere and http on localhost only', () => {
    expect(isFontUrl('https://fonts.example/a.css')).toBe(true);
    expect(isFontUrl('http://localhost:5173/a.css')).toBe(true);
    expect(isFontUrl('http://fonts.example/a.css')).toBe(false);
    expect(isFontUrl('javascript:alert(1)')).toBe(false);
    expect(fontFaceUrl('url(https://cdn.example/a.woff2) format("woff2")')).toBe('https://cdn.example/a.woff2');
    expect(fontFaceUrl('url(https://cdn.example/a.woff2); }')).toBeUndefined();
  });

  test('a cssSrc becomes one stylesheet link, an unsafe one none', () => {
    (window as unknown as { happyDOM: { settings: { disableCSSFileLoading: boolean } } }).happyDOM.settings.disableCSSFileLoading = true;
    applyFonts([{ cssSrc: 'https://fonts.example/css?family=Inter' }, { cssSrc: 'https://fonts.example/css?family=Inter' }, { cssSrc: 'ftp://x/y.css' }]);
    const links = [...document.head.querySelectorAll('link[rel="stylesheet"]')].map((link) => link.getAttribute('href'));
    expect(links).toEqual(['https://fonts.example/css?family=Inter']);
  });
});
