import { describe, expect, test } from 'vitest';
import type { FrameConfig } from '../../protocol/frame-messages';
import { API_BASE_META, documentApiBaseUrl, parseFrameParams, sanitizeUpdate, urlDeclaringOrigins } from './params';
import { CONFIG } from './test-utils';

const hash = (params: Record<string, string>) => '#' + new URLSearchParams(params).toString();
const GOOD = { origin: 'https://shop.test', channel: 'rail-1234', config: JSON.stringify(CONFIG) };

describe('parseFrameParams', () => {
  test('reads the merchant origin, channel and config', () => {
    expect(parseFrameParams(hash(GOOD))).toEqual({ merchantOrigin: 'https://shop.test', channel: 'rail-1234', config: CONFIG });
  });

  test('keeps a valid locale and appearance, defaults the rest', () => {
    const config = { ...CONFIG, locale: 'fr', appearance: { theme: 'night' }, apiBaseUrl: 'https://api.rail.test/' };
    expect(parseFrameParams(hash({ ...GOOD, config: JSON.stringify(config) }))?.config).toEqual({
      ...CONFIG,
      locale: 'fr',
      appearance: { theme: 'night' },
    });
    expect(parseFrameParams(hash({ ...GOOD, config: JSON.stringify({ ...CONFIG, locale: 'xx' }) }))?.config.locale).toBe('en');
  });

  test("without the host's apiBaseUrl it takes the deployment's; the host's (customBackendUrl) wins", () => {
    const { apiBaseUrl: _omitted, ...fromScript } = CONFIG;
    const fragment = hash({ ...GOOD, config: JSON.stringify(fromScript) });
    expect(parseFrameParams(fragment, 'https://api.deploy.test/')?.config.apiBaseUrl).toBe('https://api.deploy.test');
    expect(parseFrameParams(fragment)).toBeUndefined();
    expect(parseFrameParams(hash(GOOD), 'https://api.deploy.test')?.config.apiBaseUrl).toBe(CONFIG.apiBaseUrl);
    expect(parseFrameParams(hash({ ...GOOD, config: JSON.stringify({ ...CONFIG, apiBaseUrl: 'javascript:alert(1)' }) }), 'https://api.deploy.test')).toBeUndefined();
  });

  test("the vault's base is the deployment's even when the host names another API (customBackendUrl)", () => {
    const config = { ...CONFIG, apiBaseUrl: 'https://collector.example/' };
    const parsed = parseFrameParams(hash({ ...GOOD, config: JSON.stringify(config) }), 'https://api.deploy.test/')?.config;
    expect(parsed).toMatchObject({ apiBaseUrl: 'https://collector.example', vaultBaseUrl: 'https://api.deploy.test' });
    // A document the js listener did not serve (vite dev server) names no deployment: the host's then.
    expect(parseFrameParams(hash({ ...GOOD, config: JSON.stringify(config) }))?.config.vaultBaseUrl).toBe('https://collector.example');
  });

  test.each([
    ['no fragment', ''],
    ['a wildcard origin', hash({ ...GOOD, origin: '*' })],
    ['an opaque origin', hash({ ...GOOD, origin: 'null' })],
    ['an origin with a path', hash({ ...GOOD, origin: 'https://shop.test/checkout' })],
    ['a javascript: origin', hash({ ...GOOD, origin: 'javascript:alert(1)' })],
    ['a channel with odd characters', hash({ ...GOOD, channel: 'a b<c>' })],
    ['config that is not JSON', hash({ ...GOOD, config: '{' })],
    ['config without a client secret', hash({ ...GOOD, config: JSON.stringify({ ...CONFIG, clientSecret: 1 }) })],
  ])('refuses %s', (_name, value) => {
    expect(parseFrameParams(value)).toBeUndefined();
  });
});

describe('documentApiBaseUrl', () => {
  test.each([
    ['https://api.example.com', 'https://api.example.com'],
    ['__RAIL_API_BASE_URL__', undefined],
    ['javascript:alert(1)', undefined],
  ])('a meta content of %s gives %s', (content, expected) => {
    document.head.innerHTML = `<meta name="${API_BASE_META}" content="${content}">`;
    expect(documentApiBaseUrl(document)).toBe(expected);
  });

  test('no meta tag gives undefined', () => {
    document.head.innerHTML = '';
    expect(documentApiBaseUrl(document)).toBeUndefined();
  });
});

describe('sanitizeUpdate', () => {
  test.each([
    [{ locale: 'fr' }, { locale: 'fr' }],
    [{ locale: 'xx', clientSecret: 7 }, {}],
    [{ appearance: { theme: 'night' }, extra: true }, { appearance: { theme: 'night' } }],
    [null, {}],
    ['text', {}],
  ])('%o becomes %o', (update, expected) => {
    expect(sanitizeUpdate(update)).toEqual(expected);
  });
});

describe('urlDeclaringOrigins (a runtime from before the frame URL declared its origins)', () => {
  const API = 'https://api.rail.test';
  const configWith = (extra: Partial<FrameConfig>) =>
    parseFrameParams(`#origin=${encodeURIComponent('https://shop.test')}&channel=c1&config=${encodeURIComponent(JSON.stringify({ publishableKey: 'pk', clientSecret: 'cs', ...extra }))}`, API)!.config;
  const at = (search: string) => ({ pathname: '/frame/', search, hash: '#origin=x' });

  test('a frame whose config fetches from origins its query does not declare loads itself again declaring them', () => {
    const config = configWith({ apiBaseUrl: 'https://proxy.shop.test/rail', fonts: [{ cssSrc: 'https://fonts.googleapis.com/css2?family=Inter' }] });
    expect(urlDeclaringOrigins(at(''), config)).toBe('/frame/?connect=https%3A%2F%2Fproxy.shop.test&connect=https%3A%2F%2Ffonts.googleapis.com#origin=x');
    expect(urlDeclaringOrigins(at('?connect=https%3A%2F%2Fproxy.shop.test'), config)).toBeDefined();
  });

  test('nothing to do when every origin is declared, or when the frame fetches from its deployment only', () => {
    const config = configWith({ apiBaseUrl: 'https://proxy.shop.test', fonts: [{ family: 'F', src: 'url(https://cdn.test/f.woff2)' }] });
    expect(urlDeclaringOrigins(at('?connect=https%3A%2F%2Fproxy.shop.test'), config)).toBeUndefined();
    expect(urlDeclaringOrigins(at(''), configWith({}))).toBeUndefined();
    expect(urlDeclaringOrigins(at(''), configWith({ apiBaseUrl: `${API}/` }))).toBeUndefined();
  });
});
