import { describe, expect, test, vi } from 'vitest';
import { appearanceCss, applyFonts, coversAscii, fontFaceUrl, isFontUrl, isSafeCssValue, stylesheetFontFaces } from './appearance';

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
  /** Stubs FontFace and document.fonts (the test restores them); returns the sources of the faces the frame makes. */
  function constructedFaceSources(): string[] {
    const added: string[] = [];
    vi.stubGlobal(
      'FontFace',
      class {
        constructor(_family: string, source: string) {
          added.push(source);
        }
        load() {
          return Promise.resolve(this);
        }
      },
    );
    Object.defineProperty(document, 'fonts', { configurable: true, value: { add: () => undefined } });
    return added;
  }

  test('accept https anywhere and http on localhost only', () => {
    expect(isFontUrl('https://fonts.example/a.css')).toBe(true);
    expect(isFontUrl('http://localhost:5173/a.css')).toBe(true);
    expect(isFontUrl('http://127.0.0.1:5173/a.css')).toBe(true);
    // Not a host the frame's CSP can name: its fonts would be refused there.
    expect(isFontUrl('http://[::1]:5173/a.css')).toBe(false);
    expect(isFontUrl('http://fonts.example/a.css')).toBe(false);
    expect(isFontUrl('javascript:alert(1)')).toBe(false);
    expect(fontFaceUrl('url(https://cdn.example/a.woff2) format("woff2")')).toBe('https://cdn.example/a.woff2');
    expect(fontFaceUrl('url(https://cdn.example/a.woff2); }')).toBeUndefined();
  });

  test('a stylesheet keeps only its @font-face rules, with https font URLs resolved against it', () => {
    const css = `/* latin */
      @font-face { font-family: 'Inter'; font-style: normal; font-weight: 400; font-display: swap;
        src: url(https://fonts.gstatic.test/inter.woff2) format('woff2'); unicode-range: U+0000-00FF, U+2212; }
      @font-face { font-family: "Brand"; src: url(brand.woff2) format("woff2"), local(Brand), url(http://cdn.test/x.woff); }
      @font-face { font-family: Plain; src: url(http://cdn.test/plain.woff2); }
      @font-face { font-family: 'Evil"'; src: url(https://cdn.test/e.woff2); }
      .Input { font-family: Inter; background: url(https://evil.test/x) }`;
    expect(stylesheetFontFaces(css, 'https://fonts.test/css/brand.css')).toEqual([
      {
        family: 'Inter',
        source: 'url("https://fonts.gstatic.test/inter.woff2") format("woff2")',
        descriptors: { weight: '400', style: 'normal', display: 'swap', unicodeRange: 'U+0000-00FF, U+2212' },
      },
      { family: 'Brand', source: 'url("https://fonts.test/css/brand.woff2") format("woff2")', descriptors: {} },
    ]);
  });

  test('keeps a long unicode-range (CJK subsets) and leaves out a face whose range is malformed', () => {
    const longRange = Array.from({ length: 120 }, (_, index) => `U+${(0x4e00 + index * 16).toString(16)}-${(0x4e00 + index * 16 + 9).toString(16)}`).join(', ');
    const css = `@font-face { font-family: Noto; src: url(https://fonts.test/jp-1.woff2); unicode-range: ${longRange}; }
      @font-face { font-family: Noto; src: url(https://fonts.test/bad.woff2); unicode-range: U+30 U+3G; }`;
    expect(stylesheetFontFaces(css, 'https://fonts.test/a.css')).toEqual([
      { family: 'Noto', source: 'url("https://fonts.test/jp-1.woff2")', descriptors: { unicodeRange: longRange } },
    ]);
    expect(longRange.length).toBeGreaterThan(200);
  });

  test.each([
    [undefined, true],
    ['U+0000-00FF, U+0131', true],
    ['U+34', true],
    ['U+3?', true],
    ['U+0400-045F, U+0490-0491', false],
    ['U+1E00-1FFF', false],
  ])('unicode-range %s covers a card field character: %s', (range, covers) => {
    expect(coversAscii(range)).toBe(covers);
  });

  test("a cssSrc's faces are added without its other rules, and the ones that can draw a digit load at once", async () => {
    const added: { family: string; source: string; descriptors: FontFaceDescriptors; loaded: boolean }[] = [];
    class FakeFontFace {
      entry: (typeof added)[number];
      constructor(family: string, source: string, descriptors: FontFaceDescriptors) {
        this.entry = { family, source, descriptors, loaded: false };
      }
      load() {
        this.entry.loaded = true;
        return Promise.resolve(this);
      }
    }
    vi.stubGlobal('FontFace', FakeFontFace);
    Object.defineProperty(document, 'fonts', { configurable: true, value: { add: (face: FakeFontFace) => added.push(face.entry) } });
    // One face per digit: a face loaded only when drawn would tell the font server which digits were typed.
    const css = ['4', '2'].map((digit) => `@font-face{font-family:Spy;src:url(https://spy.test/${digit}.woff2);unicode-range:U+3${digit}}`).join('') +
      '@font-face{font-family:Inter;src:url(https://fonts.test/cyrillic.woff2);unicode-range:U+0400-045F}' +
      '.Input{font-family:Spy}';
    const fetch = vi.fn(async () => new Response(css));
    try {
      applyFonts([{ cssSrc: 'https://fonts.test/css?family=Spy' }, { cssSrc: 'https://fonts.test/css?family=Spy' }, { cssSrc: 'ftp://x/y.css' }], document, fetch);
      await vi.waitFor(() => expect(added).toHaveLength(3));
      expect(fetch).toHaveBeenCalledTimes(1);
      expect(added.map((face) => [face.source, face.loaded])).toEqual([
        ['url("https://spy.test/4.woff2")', true],
        ['url("https://spy.test/2.woff2")', true],
        ['url("https://fonts.test/cyrillic.woff2")', false],
      ]);
      expect(document.head.querySelectorAll('link[rel="stylesheet"]')).toHaveLength(0);
    } finally {
      vi.unstubAllGlobals();
      Reflect.deleteProperty(document, 'fonts');
    }
  });

  test("a cssSrc's @import is neither fetched nor applied: only the stylesheet's own @font-face rules reach the frame", async () => {
    const added = constructedFaceSources();
    const css = '@import url("https://evil.test/more.css");@import "https://evil.test/other.css" layer(x);@font-face{font-family:Own;src:url(own.woff2)}';
    const fetch = vi.fn(async () => new Response(css));
    try {
      applyFonts([{ cssSrc: 'https://fonts.test/imports.css' }], document, fetch);
      await vi.waitFor(() => expect(added).toEqual(['url("https://fonts.test/own.woff2")']));
      expect(fetch.mock.calls).toEqual([['https://fonts.test/imports.css', { credentials: 'omit' }]]);
      expect(document.querySelectorAll('style, link[rel="stylesheet"]')).toHaveLength(0);
    } finally {
      vi.unstubAllGlobals();
      Reflect.deleteProperty(document, 'fonts');
    }
  });

  test("a cssSrc's relative font URLs resolve against the stylesheet's URL after redirects; a failed fetch may be tried again", async () => {
    const added = constructedFaceSources();
    const redirected = () => {
      const response = new Response('@font-face{font-family:Brand;src:url(brand.woff2)}');
      Object.defineProperty(response, 'url', { value: 'https://fonts.test/v3/fonts.css' });
      return response;
    };
    const fetch = vi.fn<typeof globalThis.fetch>().mockResolvedValueOnce(new Response('', { status: 503 })).mockResolvedValue(redirected());
    try {
      applyFonts([{ cssSrc: 'https://fonts.test/fonts.css' }], document, fetch);
      await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(added).toEqual([]);
      applyFonts([{ cssSrc: 'https://fonts.test/fonts.css' }], document, fetch);
      await vi.waitFor(() => expect(added).toEqual(['url("https://fonts.test/v3/brand.woff2")']));
    } finally {
      vi.unstubAllGlobals();
      Reflect.deleteProperty(document, 'fonts');
    }
  });
});
