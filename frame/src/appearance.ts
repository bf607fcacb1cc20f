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

/** https anywhere, http only on localhost (development). */
export function isFontUrl(url: unknown): url is string {
  if (typeof url !== 'string' || url.length > 2048) return false;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || (parsed.protocol === 'http:' && /^(localhost|127\.0\.0\.1|\[::1\])$/.test(parsed.hostname));
  } catch {
    return false;
  }
}

/** The URL inside a CSS `url(...)` font source, or undefined when the source is anything else. */
export function fontFaceUrl(src: unknown): string | undefined {
  const match = typeof src === 'string' ? /^url\((['"]?)([^'"()\s]+)\1\)(\s+format\(['"]?[\w-]+['"]?\))?$/.exec(src.trim()) : null;
  return match && isFontUrl(match[2]) ? match[2] : undefined;
}

const loadedFonts = new Set<string>();

/**
 * Loads the merchant's fonts (the `fonts` option of elements()): stylesheets through <link>, single faces through
 * the FontFace API. Unsafe URLs and descriptors are dropped; a font that fails to load leaves the fallback stack.
 */
export function applyFonts(fonts: readonly FontSource[] | undefined, doc: Document = document): void {
  for (const font of fonts ?? []) {
    if ('cssSrc' in font) {
      if (!isFontUrl(font.cssSrc) || loadedFonts.has(font.cssSrc)) continue;
      loadedFonts.add(font.cssSrc);
      const link = doc.createElement('link');
      link.rel = 'stylesheet';
      link.href = font.cssSrc;
      doc.head.appendChild(link);
    } else {
      const url = fontFaceUrl(font.src);
      if (!url || typeof font.family !== 'string' || !isSafeCssValue(font.family) || typeof FontFace !== 'function') continue;
      const descriptors: FontFaceDescriptors = {};
      if (isSafeCssValue(font.weight)) descriptors.weight = font.weight;
      if (isSafeCssValue(font.style)) descriptors.style = font.style;
      if (isSafeCssValue(font.unicodeRange)) descriptors.unicodeRange = font.unicodeRange;
      if (font.display && ['auto', 'block', 'swap', 'fallback', 'optional'].includes(font.display)) descriptors.display = font.display as FontDisplay;
      const face = new FontFace(font.family, `url(${JSON.stringify(url)})`, descriptors);
      doc.fonts.add(face);
      face.load().catch(() => {});
    }
  }
}
