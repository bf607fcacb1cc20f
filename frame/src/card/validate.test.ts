import { describe, expect, it } from 'vitest';
import type { CardBrand } from './card-brands';
import { validateCardNumber, validateCvc, validateExpiry, validateHolderName } from './validate';

describe('validateCardNumber', () => {
  it.each([
    ['4242424242424242', 'Visa'],
    ['4222222222222', 'Visa'],
    ['5555555555554444', 'Mastercard'],
    ['2223003122003222', 'Mastercard'],
    ['378282246310005', 'AmericanExpress'],
    ['371449635398431', 'AmericanExpress'],
    ['6011111111111117', 'Discover'],
    ['3566002020360505', 'JCB'],
    ['36227206271667', 'DinersClub'],
    ['6200000000000005', 'UnionPay'],
    ['6759649826438453', 'Maestro'],
    ['6082015309577308', 'RuPay'],
    ['4035501000000008', 'Visa'],
    ['0012000000000006', 'Interac'],
    ['4242 4242 4242 4242', 'Visa'],
  ] as const)('accepts %s as a complete %s', (number, brand) => {
    expect(validateCardNumber(number)).toEqual({ brand, complete: true, valid: true });
  });

  it.each([
    ['4242424242424241', 'Visa'],
    ['5555555555554445', 'Mastercard'],
    ['378282246310006', 'AmericanExpress'],
    ['6011111111111118', 'Discover'],
    ['3566002020360506', 'JCB'],
    ['36227206271668', 'DinersClub'],
    ['6759649826438454', 'Maestro'],
    ['6082015309577309', 'RuPay'],
    ['0012000000000007', 'Interac'],
  ] as const)('rejects %s (%s) for its check digit', (number, brand) => {
    expect(validateCardNumber(number)).toEqual({ brand, complete: true, valid: false, error: 'invalid_luhn' });
  });

  it('skips Luhn for UnionPay, which issues numbers that fail it', () => {
    expect(validateCardNumber('6200000000000006')).toEqual({ brand: 'UnionPay', complete: true, valid: true });
  });

  it.each([
    ['', undefined],
    ['4', 'Visa'],
    ['4242 4242 4242', 'Visa'],
    ['42424242424242', 'Visa'],
    ['37828224631000', 'AmericanExpress'],
    ['555555555555444', 'Mastercard'],
    ['5', undefined],
    ['22', undefined],
  ] as const)('reports %j as incomplete (brand %s)', (number, brand) => {
    expect(validateCardNumber(number)).toEqual({ brand, complete: false, valid: false, error: 'incomplete' });
  });

  it.each([
    ['55555555555544440', 'Mastercard'],
    ['3782822463100050', 'AmericanExpress'],
    ['42424242424242424242', 'Visa'],
  ] as const)('reports %s as too long for %s', (number, brand) => {
    expect(validateCardNumber(number)).toEqual({ brand, complete: false, valid: false, error: 'invalid_length' });
  });

  it.each(['9', '7000', '2200000000000004', '01'])('reports %s as an unknown brand as soon as no network can match', (number) => {
    expect(validateCardNumber(number)).toEqual({ brand: undefined, complete: false, valid: false, error: 'unknown_brand' });
  });

  it.each([
    ['2200000000000004', true, true, undefined],
    ['9000000000000000', true, false, 'invalid_luhn'],
    ['90000000000', false, false, 'incomplete'],
    ['90000000000000000000', false, false, 'invalid_length'],
  ] as const)('with allowUnknownBrand, judges %s by length 12-19 and Luhn', (number, complete, valid, error) => {
    const expected = error ? { brand: undefined, complete, valid, error } : { brand: undefined, complete, valid };
    expect(validateCardNumber(number, { allowUnknownBrand: true })).toEqual(expected);
  });
});

describe('validateExpiry', () => {
  // 15 May 2026, local time.
  const now = new Date(2026, 4, 15);

  it.each([
    ['05 / 26', 5, 2026, 'the current month'],
    ['06 / 26', 6, 2026, 'next month'],
    ['12 / 46', 12, 2046, 'the last month of the 20th year ahead'],
    ['01 / 30', 1, 2030, 'a usual future date'],
    ['05/2026', 5, 2026, 'a four-digit year'],
    ['0530', 5, 2030, 'digits only'],
    ['2030-07', 7, 2030, 'YYYY-MM'],
    ['5 / 27', 5, 2027, 'a one-digit month before a separator'],
    ['  12 / 30 ', 12, 2030, 'surrounding spaces'],
  ])('accepts %j (%s)', (text, month, year) => {
    expect(validateExpiry(text, now)).toEqual({ month, year, valid: true });
  });

  it.each<[string, number, number, 'in_the_past' | 'too_far', string]>([
    ['04 / 26', 4, 2026, 'in_the_past', 'last month'],
    ['12 / 25', 12, 2025, 'in_the_past', 'last year'],
    ['04/2026', 4, 2026, 'in_the_past', 'last month with a four-digit year'],
    ['01 / 47', 1, 2047, 'too_far', 'the 21st year ahead'],
    ['01 / 99', 1, 2099, 'too_far', 'a two-digit year read in this century'],
  ])('rejects %j as %s', (text, month, year, error) => {
    expect(validateExpiry(text, now)).toEqual({ month, year, valid: false, error });
  });

  it.each([
    ['', undefined],
    ['0', undefined],
    ['1', undefined],
    ['12', 12],
    ['12 / ', 12],
    ['12 / 2', 12],
    ['12 / 203', 12],
    ['1/', 1],
  ])('reports %j as incomplete (month %s)', (text, month) => {
    expect(validateExpiry(text, now)).toEqual({ month, year: undefined, valid: false, error: 'incomplete' });
  });

  it.each(['00', '13', '00 / 30', '13 / 30', '0/30', '12/30/40', '2030-13'])('rejects %j as an invalid month', (text) => {
    expect(validateExpiry(text, now)).toEqual({ month: undefined, year: undefined, valid: false, error: 'invalid_month' });
  });

  it.each([
    [new Date(2026, 11, 31, 23, 59), '12 / 26', true, 'the last minute of the expiry month'],
    [new Date(2027, 0, 1, 0, 0), '12 / 26', false, 'the first minute after it'],
    [new Date(2095, 0, 1), '01 / 05', true, 'a two-digit year rolling into the next century'],
    [new Date(2095, 0, 1), '01 / 94', false, 'a two-digit year last year near a century end'],
  ])('on %s reads %j as valid=%s (%s)', (at, text, valid) => {
    expect(validateExpiry(text, at).valid).toBe(valid);
  });
});

describe('validateCvc', () => {
  it.each([
    ['123', 'Visa', { valid: true }],
    ['1234', 'AmericanExpress', { valid: true }],
    ['123', 'AmericanExpress', { valid: false, error: 'incomplete' }],
    ['1234', 'Visa', { valid: false, error: 'invalid_length' }],
    ['12', 'Mastercard', { valid: false, error: 'incomplete' }],
    ['', 'RuPay', { valid: false, error: 'incomplete' }],
    ['12a', 'Visa', { valid: false, error: 'invalid_characters' }],
    ['123', undefined, { valid: true }],
    ['1234', undefined, { valid: true }],
    ['12345', undefined, { valid: false, error: 'invalid_length' }],
  ] as const)('judges %j for %s', (cvc, brand: CardBrand | undefined, expected) => {
    expect(validateCvc(cvc, brand)).toEqual(expected);
  });
});

describe('validateHolderName', () => {
  it.each([
    ['Jane Doe', 'Jane Doe'],
    ['  Zoë   O’Brien ', 'Zoë O’Brien'],
    ["Jean-Luc D'Arcy, Jr.", "Jean-Luc D'Arcy, Jr."],
    ['अनिल कुमार', 'अनिल कुमार'],
    ['李小龍', '李小龍'],
  ])('accepts %j as %j', (input, name) => {
    expect(validateHolderName(input)).toEqual({ name, valid: true });
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['4242 4242 4242 4242', 'invalid_characters'],
    ['Agent 007', 'invalid_characters'],
    ['<script>', 'invalid_characters'],
    ['a'.repeat(101), 'too_long'],
  ])('rejects %j as %s', (input, error) => {
    expect(validateHolderName(input)).toMatchObject({ valid: false, error });
  });
});
