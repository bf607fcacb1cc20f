import fc from 'fast-check';
import jsQR from 'jsqr';
import { encode } from 'uqr';
import { describe, expect, test } from 'vitest';
import { qrSvg, qrSvgDataUrl } from './qr-image';

const SIMULATOR_PAGE = 'http://127.0.0.1:8080/simulator/upi/pay_4Hq9ZxT2mPd8sLwR3vYc?account=acct_7Kd2LmQ9xWz4RtYp&challenge=Zq8Rk2Lm9Xw4Tp7Yc3Nv6Bd1';
const PIXELS_PER_MODULE = 4;

/** The SVG inside a `data:image/svg+xml;base64,` URL. */
function svgOf(dataUrl: string): string {
  const prefix = 'data:image/svg+xml;base64,';
  expect(dataUrl.startsWith(prefix)).toBe(true);
  return Buffer.from(dataUrl.slice(prefix.length), 'base64').toString('utf8');
}

/**
 * What a renderer draws from the SVG, in modules: the viewBox (symbol plus quiet zone), a white background, and the
 * dark path read command by command (M, m, h, H): each horizontal segment is stroked 1 unit wide along a row's middle,
 * so it darkens the modules of that row it passes over.
 */
function modulesOf(svg: string): { origin: number; side: number; dark: boolean[][] } {
  const viewBox = /viewBox="(-?\d+) (-?\d+) (\d+) (\d+)"/.exec(svg);
  expect(viewBox, svg).not.toBeNull();
  const [origin, originY, side, sideY] = viewBox!.slice(1).map(Number) as [number, number, number, number];
  expect([originY, sideY]).toEqual([origin, side]);
  expect(svg).toContain(`<rect x="${origin}" y="${origin}" width="${side}" height="${side}" fill="#fff"/>`);
  expect(svg).toContain('shape-rendering="crispEdges"');
  const d = /<path stroke="#000" d="([^"]*)"\/>/.exec(svg)?.[1];
  expect(d, svg).toBeDefined();
  const dark = Array.from({ length: side }, () => Array<boolean>(side).fill(false));
  let x = 0;
  let y = 0;
  for (const [, command, args] of d!.matchAll(/([MmhH])([^MmhH]*)/g)) {
    const [a = NaN, b = NaN] = args!.trim().split(/[ ,]+/).map(Number);
    if (command === 'M') [x, y] = [a, b];
    else if (command === 'm') [x, y] = [x + a, y + b];
    else {
      const to = command === 'h' ? x + a : a;
      expect(y % 1, `a stroke on a row's middle: ${y}`).toBe(0.5);
      for (let col = Math.min(x, to); col < Math.max(x, to); col++) dark[Math.floor(y) - origin]![col - origin] = true;
      x = to;
    }
  }
  return { origin, side, dark };
}

/** The modules as RGBA pixels (dark = black, light = white), PIXELS_PER_MODULE pixels a side, for jsQR. */
function rasterize(dark: boolean[][]): { pixels: Uint8ClampedArray; width: number } {
  const width = dark.length * PIXELS_PER_MODULE;
  const pixels = new Uint8ClampedArray(width * width * 4);
  for (let py = 0; py < width; py++) {
    for (let px = 0; px < width; px++) {
      const value = dark[Math.floor(py / PIXELS_PER_MODULE)]![Math.floor(px / PIXELS_PER_MODULE)] ? 0 : 255;
      pixels.set([value, value, value, 255], (py * width + px) * 4);
    }
  }
  return { pixels, width };
}

/** Decodes the QR image of a data URL the way a scanner would read the rendered SVG. */
function decode(dataUrl: string): string | undefined {
  const { dark } = modulesOf(svgOf(dataUrl));
  const { pixels, width } = rasterize(dark);
  return jsQR(pixels, width, width, { inversionAttempts: 'dontInvert' })?.data;
}

describe('qrSvgDataUrl', () => {
  test('an SVG data URL that decodes back to the simulator page URL', () => {
    const dataUrl = qrSvgDataUrl(SIMULATOR_PAGE);
    expect(dataUrl.startsWith('data:image/svg+xml;base64,')).toBe(true);
    expect(decode(dataUrl)).toBe(SIMULATOR_PAGE);
  });

  test('draws exactly the modules uqr encodes, inside a 4-module white quiet zone', () => {
    const { data: symbol, size } = encode(SIMULATOR_PAGE, { ecc: 'M', border: 0 });
    const { origin, side, dark } = modulesOf(qrSvg(SIMULATOR_PAGE));
    expect([origin, side]).toEqual([-4, size + 8]);
    const inner = dark.slice(4, 4 + size).map((row) => row.slice(4, 4 + size));
    expect(inner).toEqual(symbol);
    const quietZone = dark.flatMap((row, y) => row.filter((_, x) => x < 4 || y < 4 || x >= 4 + size || y >= 4 + size));
    expect(quietZone.every((module) => !module)).toBe(true);
  });

  test('one stroke per run of dark modules: a simulator page QR stays under 5 KB of SVG', () => {
    const svg = qrSvg(SIMULATOR_PAGE);
    const { data } = encode(SIMULATOR_PAGE, { ecc: 'M', border: 0 });
    const runs = data.reduce((count, row) => count + row.filter((module, x) => module && !row[x - 1]).length, 0);
    expect(/ d="([^"]*)"/.exec(svg)?.[1]?.match(/h/g)).toHaveLength(runs);
    expect(svg.length).toBeLessThan(5_000);
  });

  test('any http(s) URL round-trips', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        expect(decode(qrSvgDataUrl(url))).toBe(url);
      }),
      { numRuns: 40 },
    );
  });
});
