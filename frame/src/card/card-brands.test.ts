import { describe, expect, it } from 'vitest';
import { CARD_BRANDS, canMatchAnyBrand, detectBrand, detectBrands, getCardBrandSpec, type CardBrand } from './card-brands';

// Public test numbers. RuPay: PayU's documented sandbox card (6080000000000001 is outside the
// reference's RuPay ranges and fails Luhn). The reference gives no Cartes Bancaires or Interac
// sample: 4035501000000008 is Adyen's Visa/CB test card; the rest are built inside the reference's
// ranges with a valid check digit.
const SAMPLES: [string, CardBrand, CardBrand[]][] = [
  ['4242424242424242', 'Visa', ['Visa']],
  ['5555555555554444', 'Mastercard', ['Mastercard']],
  ['2223003122003222', 'Mastercard', ['Mastercard']],
  ['378282246310005', 'AmericanExpress', ['AmericanExpress']],
  ['6011111111111117', 'Discover', ['Discover']],
  ['3566002020360505', 'JCB', ['JCB']],
  ['36227206271667', 'DinersClub', ['DinersClub']],
  ['6200000000000005', 'UnionPay', ['UnionPay']],
  ['6759649826438453', 'Maestro', ['Maestro']],
  ['6082015309577308', 'RuPay', ['RuPay']],
  ['4035501000000008', 'Visa', ['Visa', 'CartesBancaires']],
  ['5130000000000002', 'Mastercard', ['Mastercard', 'CartesBancaires']],
  ['4506000000000001', 'Visa', ['Visa', 'Interac']],
  ['0012000000000006', 'Interac', ['Interac']],
];

describe('detectBrand', () => {
  it.each(SAMPLES)('detects %s as %s', (number, brand) => {
    expect(detectBrand(number)).toBe(brand);
  });

  it('covers every network of the table with a sample', () => {
    const seen = new Set(SAMPLES.flatMap(([, , brands]) => brands));
    expect([...seen].sort()).toEqual(CARD_BRANDS.map((spec) => spec.brand).sort());
  });

  it.each([
    ['', undefined],
    ['3', undefined],
    ['4', 'Visa'],
    ['34', 'AmericanExpress'],
    ['37', 'AmericanExpress'],
    ['22', undefined],
    ['2220', undefined],
    ['2221', 'Mastercard'],
    ['23', 'Mastercard'],
    ['2720', 'Mastercard'],
    ['2721', undefined],
    ['51', 'Mastercard'],
    ['305', 'DinersClub'],
    ['306', undefined],
    ['3528', 'JCB'],
    ['3589', 'JCB'],
    ['1800', 'JCB'],
    ['6', 'Maestro'],
    ['603845', 'Maestro'],
  ] as const)('reads the prefix %j as %s', (prefix, brand) => {
    expect(detectBrand(prefix)).toBe(brand);
  });

  it.each<[string, CardBrand, string]>([
    ['4936', 'Visa', 'a prefix shorter than the longer range keeps the shorter match'],
    ['493698', 'Maestro', 'the 6-digit Maestro IIN beats Visa "4"'],
    ['6011', 'Discover', 'Discover "6011" beats the Maestro "6" catch-all'],
    ['65', 'Discover', 'Discover "65" beats Maestro "6"'],
    ['652149', 'Discover', 'just below the RuPay range stays Discover'],
    ['652150', 'RuPay', 'RuPay 652150-653149 beats Discover "65"'],
    ['653149', 'RuPay', 'the top of the RuPay range'],
    ['653150', 'Discover', 'just above the RuPay range is Discover again'],
    ['353800', 'RuPay', 'RuPay 353800 beats JCB 3528-3589'],
    ['353900', 'JCB', 'a neighbour of 353800 stays JCB'],
    ['508227', 'RuPay', 'RuPay 508227 beats Maestro 506779-508999 (same length, narrower)'],
    ['508500', 'RuPay', 'RuPay 508500-508999 beats the wider Maestro range of the same length'],
    ['508499', 'Maestro', 'between the RuPay ranges stays Maestro'],
    ['817290', 'RuPay', 'RuPay 817290 beats UnionPay 8164-8171'],
    ['8171', 'UnionPay', 'UnionPay 81x'],
    ['82', 'RuPay', 'RuPay "82" has no competitor'],
    ['622126', 'UnionPay', "Discover's co-branded 622126-622925 is left to UnionPay"],
    ['62200', 'UnionPay', 'UnionPay 62200-62205 beats Maestro "6"'],
    ['627780', 'Maestro', "the hole in UnionPay's 6277 ranges falls back to Maestro"],
    ['606985', 'RuPay', 'RuPay 606985-607984 beats Maestro "6"'],
  ])('resolves %s to %s: %s', (prefix, brand) => {
    expect(detectBrand(prefix)).toBe(brand);
  });

  it('ignores spaces and other separators', () => {
    expect(detectBrand('3782 822463 10005')).toBe('AmericanExpress');
  });
});

describe('detectBrands', () => {
  it.each(SAMPLES)('lists the networks of %s (primary %s) as %j', (number, _brand, brands) => {
    expect(detectBrands(number)).toEqual(brands);
  });

  it.each([
    ['4', ['Visa']],
    ['4035', ['Visa']],
    ['403550', ['Visa', 'CartesBancaires']],
    ['4761', ['Visa', 'Interac']],
    ['9', []],
  ] as const)('offers the co-badge only once its prefix is typed: %s -> %j', (prefix, brands) => {
    expect(detectBrands(prefix)).toEqual(brands);
  });
});

describe('canMatchAnyBrand', () => {
  it.each([
    ['', true],
    ['5', true],
    ['50', true],
    ['1', true],
    ['00', true],
    ['001', true],
    ['01', false],
    ['7', false],
    ['9', false],
    ['2200', false],
    ['3000', true],
    ['3100', false],
  ] as const)('reports whether %j can still become a known brand: %s', (prefix, expected) => {
    expect(canMatchAnyBrand(prefix)).toBe(expected);
  });
});

describe('CARD_BRANDS', () => {
  it.each(CARD_BRANDS.map((spec) => [spec.brand, spec] as const))('keeps a well-formed row for %s', (_brand, spec) => {
    for (const iin of spec.iins) {
      const [from = '', to = from] = iin.split('-');
      expect(from).toMatch(/^\d+$/);
      expect(to.length).toBe(from.length);
      expect(Number(from)).toBeLessThanOrEqual(Number(to));
    }
    expect([...spec.lengths].sort((a, b) => a - b)).toEqual(spec.lengths);
    expect(Math.max(...spec.lengths)).toBeLessThanOrEqual(19);
    expect([3, 4]).toContain(spec.cvcLength);
  });

  it.each([
    ['AmericanExpress', 4, [4, 10]],
    ['DinersClub', 3, [4, 10]],
    ['Visa', 3, [4, 8, 12, 16]],
  ] as const)('gives %s a %i-digit code and gaps %j', (brand, cvcLength, gaps) => {
    expect(getCardBrandSpec(brand)).toMatchObject({ cvcLength, gaps });
  });

  it('rejects a brand outside the table with the list of valid ones', () => {
    expect(() => getCardBrandSpec('Mir' as CardBrand)).toThrow(/Unknown card brand "Mir": expected one of Visa/);
  });
});
