import { describe, expect, test } from 'vitest';
import { appearanceCss, isSafeCssValue } from './appearance';

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
    ['x'.repeat(201), false],
  ])('%s is safe: %s', (value, safe) => {
    expect(isSafeCssValue(value)).toBe(safe);
  });
});
