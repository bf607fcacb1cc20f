import type { Appearance, AppearanceVariable, FontSource } from '../../protocol/frame-messages';

const THEMES: Record<NonNullable<Appearance['theme']>, Partial<Record<AppearanceVariable, string>>> = {
  default: {},
  night: { colorPrimary: '#8fa8ff', colorBackground: '#30313d', colorText: '#e0e6eb', colorDanger: '#fe87a1' },
  flat: { colorBackground: '#f1f3f5', borderRadius: '0px' },
};

const VARIABLE_NAMES: Record<AppearanceVariable, string> = {
  colorPrimary: '--rail-color-primary',
  colorBackground: '--rail-color-background',
  colorText: '--rail-color-text',
  colorDanger: '--rail-color-danger',
  fontFamily: '--rail-font-family',
  fontSizeBase: '--rail-font-size-base',
  borderRadius: '--rail-border-radius',
  spacingUnit: '--rail-spacing-unit',
};

/** Class names a rule may target (the frame's own markup), optionally with a state suffix and a pseudo-class. */
const RULE_SELECTOR = /^\.(Root|Amount|Tab|Label|Input|Hint|Error|Notice|Wait|Action|Button|Brand)(--(invalid|focused|selected|success|error|info))?(:(hover|focus|disabled|focus-visible|focus-within))?$/;

const RULE_PROPERTIES = new Set([
  'color', 'backgroundColor', 'border', 'borderColor', 'borderWidth', 'borderStyle', 'borderRadius', 'boxShadow',
  'outline', 'outlineColor', 'outlineOffset', 'fontFamily', 'fontSize', 'fontWeight', 'fontStyle', 'lineHeight',
  'letterSpacing', 'textTransform', 'textAlign', 'padding', 'paddingTop', 'paddingRight', 'paddingBottom', 'paddingLeft',
  'margin', 'marginTop', 'marginBottom', 'transition', 'opacity',
]);

/**
 * A value that cannot leave its declaration or load anything: no braces or semicolons, no @import, and none of the
 * functions that fetch (url(), and image-set(), which takes a bare string: `image-set("https://...")`).
 */
export function isSafeCssValue(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 200 && !/[;{}<>\\]|(url|image|image-set|cross-fade|src)\s*\(|expression|@import|javascript:/i.test(value);
}

const toKebab = (name: string) => name.replace(/[A-Z]/g, (letter) => '-' + letter.toLowerCase());

/** CSS text for an appearance: variables on :root, then the merchant's rules; anything not allow-listed is dropped. */
export function appearanceCss(appearance: Appearance | undefined): string {
  const variables = { ...THEMES[appearance?.theme ?? 'default'], ...appearance?.variables };
  const declarations = Object.entries(variables)
    .filter(([name, value]) => name in VARIABLE_NAMES && isSafeCssValue(value))
    .map(([name, value]) => `${VARIABLE_NAMES[name as AppearanceVariable]}:${value}`);
  let css = declarations.length ? `:root{${declarations.join(';')}}` : '';
  for (const [selector, rule] of Object.entries(appearance?.rules ?? {})) {
    if (!RULE_SELECTOR.test(selector) || !rule || typeof rule !== 'object') continue;
    const body = Object.entries(rule)
      .filter(([property, value]) => RULE_PROPERTIES.has(property) && isSafeCssValue(value))
      .map(([property, value]) => `${toKebab(property)}:${value}`)
      .join(';');
    if (body) css += `${selector}{${body}}`;
  }
  return css;
}

let sheet: CSSStyleSheet | undefined;

/** Applies the appearance through a constructed stylesheet, which a strict style-src CSP allows. */
export function applyAppearance(appearance: Appearance | undefined, doc: Document = document): void {
  const css = appearanceCss(appearance);
  doc.documentElement.dataset.theme = appearance?.theme ?? 'default';
  if (!sheet) {
    sheet = new CSSStyleSheet();
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  }
  sheet.replaceSync(css);
}

/**
 * https anywhere, http only on localhost (development): the loopback hosts the frame's CSP names (server js-app.ts);
 * not [::1], which a CSP source cannot name, so its fonts would only be refused there.
 */
export function isFontUrl(url: unknown): url is string {
  if (typeof url !== 'string' || url.length > 2048) return false;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || (parsed.protocol === 'http:' && /^(localhost|127\.0\.0\.1)$/.test(parsed.hostname));
  } catch {
    return false;
  }
}

/** The URL inside a CSS `url(...)` font source, or undefined when the source is anything else. */
export function fontFaceUrl(src: unknown): string | undefined {
  const match = typeof src === 'string' ? /^url\((['"]?)([^'"()\s]+)\1\)(\s+format\(['"]?[\w-]+['"]?\))?$/.exec(src.trim()) : null;
  return match && isFontUrl(match[2]) ? match[2] : undefined;
}

/** One face to add to the document, as the FontFace constructor takes it. */
export interface FontFaceSpec {
  family: string;
  source: string;
  descriptors: FontFaceDescriptors;
}

const FONT_DISPLAYS = ['auto', 'block', 'swap', 'fallback', 'optional'];
// A CJK family on Google Fonts is some 120 faces a weight, each with a unicode-range of up to some 1,000 characters.
const MAX_STYLESHEET_FACES = 1000;
const UNICODE_RANGE = /^\s*u\+[\da-f?]{1,6}(-[\da-f]{1,6})?(\s*,\s*u\+[\da-f?]{1,6}(-[\da-f]{1,6})?)*\s*$/i;

/** A unicode-range value: its own grammar, not isSafeCssValue, whose length limit the long subsets pass. */
const isUnicodeRange = (value: unknown): value is string => typeof value === 'string' && value.length <= 20_000 && UNICODE_RANGE.test(value);

/** The FontFace descriptors of a source, each dropped unless safe. */
function faceDescriptors(source: { weight?: unknown; style?: unknown; display?: unknown; unicodeRange?: unknown }): FontFaceDescriptors {
  const descriptors: FontFaceDescriptors = {};
  if (isSafeCssValue(source.weight)) descriptors.weight = source.weight;
  if (isSafeCssValue(source.style)) descriptors.style = source.style;
  if (isUnicodeRange(source.unicodeRange)) descriptors.unicodeRange = source.unicodeRange;
  if (typeof source.display === 'string' && FONT_DISPLAYS.includes(source.display)) descriptors.display = source.display as FontDisplay;
  return descriptors;
}

/**
 * The @font-face rules of a font stylesheet (`cssSrc`), with their font URLs resolved against it; everything else
 * in the stylesheet is dropped, and so is a face with no https font URL.
 */
export function stylesheetFontFaces(css: string, stylesheetUrl: string): FontFaceSpec[] {
  const faces: FontFaceSpec[] = [];
  for (const [, body = ''] of css.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/@font-face\s*\{([^{}]*)\}/gi)) {
    const declarations = new Map<string, string>();
    for (const declaration of body.split(';')) {
      const colon = declaration.indexOf(':');
      if (colon > 0) declarations.set(declaration.slice(0, colon).trim().toLowerCase(), declaration.slice(colon + 1).trim());
    }
    const family = (declarations.get('font-family') ?? '').replace(/^(['"])(.*)\1$/, '$2');
    const urls = [...(declarations.get('src') ?? '').matchAll(/url\(\s*(['"]?)([^'"()\s]+)\1\s*\)(?:\s*format\(\s*['"]?([\w-]+)['"]?\s*\))?/g)].flatMap(([, , url = '', format]) => {
      let resolved: string;
      try {
        resolved = new URL(url, stylesheetUrl).href;
      } catch {
        return [];
      }
      return isFontUrl(resolved) ? [`url(${JSON.stringify(resolved)})${format ? ` format("${format}")` : ''}`] : [];
    });
    const descriptors = faceDescriptors({
      weight: declarations.get('font-weight'),
      style: declarations.get('font-style'),
      display: declarations.get('font-display'),
      unicodeRange: declarations.get('unicode-range'),
    });
    // Without its unicode-range a subset would claim every character: a face whose range is unusable is left out.
    const rangeLost = declarations.has('unicode-range') && descriptors.unicodeRange === undefined;
    if (!family || /['"]/.test(family) || !isSafeCssValue(family) || urls.length === 0 || rangeLost) continue;
    faces.push({ family, source: urls.join(', '), descriptors });
    if (faces.length === MAX_STYLESHEET_FACES) break;
  }
  return faces;
}

/**
 * Whether a face's unicode-range (all of Unicode when absent) takes any printable ASCII character: every character
 * of a card number, expiry and CVC is one.
 */
export function coversAscii(unicodeRange: string | undefined): boolean {
  if (unicodeRange === undefined) return true;
  return unicodeRange.split(',').some((part) => {
    const range = /^\s*u\+([\da-f?]{1,6})(?:-([\da-f]{1,6}))?\s*$/i.exec(part);
    if (!range) return false;
    const low = parseInt(range[1]!.replace(/\?/g, '0'), 16);
    const high = parseInt(range[2] ?? range[1]!.replace(/\?/g, 'f'), 16);
    return low <= 0x7e && high >= 0x20;
  });
}

/**
 * Adds a face and loads it now when `loadNow`. A face the browser loads only once a character of its unicode-range
 * is drawn tells its server which characters were typed: one face per digit would hand it the digits of the card
 * number and CVC.
 */
function addFace(doc: Document, { family, source, descriptors }: FontFaceSpec, loadNow: boolean): void {
  const face = new FontFace(family, source, descriptors);
  doc.fonts.add(face);
  if (loadNow) face.load().catch(() => {});
}

const loadedFonts = new Set<string>();

/**
 * Loads the merchant's fonts (the `fonts` option of elements()) through the FontFace API: single faces as given, and
 * the @font-face rules of a stylesheet (`cssSrc`, fetched; no other rule of it reaches the frame). Unsafe URLs and
 * descriptors are dropped; a font that fails to load leaves the fallback stack.
 */
export function applyFonts(fonts: readonly FontSource[] | undefined, doc: Document = document, fetchImpl: typeof fetch = (...args) => window.fetch(...args)): void {
  if (typeof FontFace !== 'function') return;
  for (const font of fonts ?? []) {
    if ('cssSrc' in font) {
      const url = font.cssSrc;
      if (!isFontUrl(url) || loadedFonts.has(url)) continue;
      loadedFonts.add(url);
      fetchImpl(url, { credentials: 'omit' })
        .then(async (response) => {
          if (!response.ok) throw new Error(`font stylesheet: ${response.status}`);
          // Relative font URLs resolve against where the stylesheet came from after redirects, as a <link> would.
          return { css: await response.text(), base: response.url || url };
        })
        // A stylesheet such as Google Fonts' splits a family into many unicode-range subsets: the ones a card field
        // can draw from load at once, the others (non-ASCII letters of a holder name) as the browser needs them.
        .then(({ css, base }) => stylesheetFontFaces(css, base).forEach((face) => addFace(doc, face, coversAscii(face.descriptors.unicodeRange))))
        // A later mount may try again.
        .catch(() => loadedFonts.delete(url));
    } else {
      const url = fontFaceUrl(font.src);
      if (!url || typeof font.family !== 'string' || !isSafeCssValue(font.family)) continue;
      addFace(doc, { family: font.family, source: `url(${JSON.stringify(url)})`, descriptors: faceDescriptors(font) }, true);
    }
  }
}
