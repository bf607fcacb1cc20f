import { describe, expect, it } from 'vitest';
import { formatCardNumber, formatExpiry, formatKeepingCaret } from './format';

describe('formatCardNumber', () => {
  it.each([
    ['4242424242424242', 'Visa', '4242 4242 4242 4242'],
    ['4242424242424242424', 'Visa', '4242 4242 4242 4242 424'],
    ['42424242424242424249', 'Visa', '4242 4242 4242 4242 424'],
    ['5555555555554444', 'Mastercard', '5555 5555 5555 4444'],
    ['55555555555544449', 'Mastercard', '5555 5555 5555 4444'],
    ['378282246310005', 'AmericanExpress', '3782 822463 10005'],
    ['3782822463100059', 'AmericanExpress', '3782 822463 10005'],
    ['36227206271667', 'DinersClub', '3622 720627 1667'],
    ['6082015309577308', 'RuPay', '6082 0153 0957 7308'],
    ['6200000000000005', 'UnionPay', '6200 0000 0000 0005'],
    ['3782', 'AmericanExpress', '3782'],
    ['37828', 'AmericanExpress', '3782 8'],
    ['', 'Visa', ''],
    ['4242-4242 x 4242', 'Visa', '4242 4242 4242'],
    ['99999999999999999999', undefined, '9999 9999 9999 9999 999'],
  ] as const)('formats %j as %s into %j', (input, brand, expected) => {
    expect(formatCardNumber(input, brand)).toBe(expected);
  });

  it.each([
    ['378282246310005', '3782 822463 10005'],
    ['4242 42', '4242 42'],
  ])('detects the brand itself when none is given: %s -> %j', (input, expected) => {
    expect(formatCardNumber(input)).toBe(expected);
  });
});

describe('formatExpiry', () => {
  it.each([
    ['', ''],
    ['0', '0'],
    ['1', '1'],
    ['1/', '01 / '],
    ['4', '04 / '],
    ['9', '09 / '],
    ['01', '01 / '],
    ['12', '12 / '],
    ['13', '01 / 3'],
    ['19', '01 / 9'],
    ['12 / 2', '12 / 2'],
    ['12 / 25', '12 / 25'],
    ['12 / 253', '12 / 25'],
    ['1225', '12 / 25'],
    ['12/2030', '12 / 30'],
    ['12 /', '12'],
    ['12 ', '12'],
    ['04 /', '04'],
    ['12/', '12 / '],
    ['ab', ''],
  ])('formats %j as %j', (input, expected) => {
    expect(formatExpiry(input)).toBe(expected);
  });
});

describe('formatKeepingCaret', () => {
  it.each<[string, number, (input: string) => string, string, number, string]>([
    ['42424', 5, formatCardNumber, '4242 4', 6, 'typing at the end moves past the new space'],
    ['4242 42424', 10, formatCardNumber, '4242 4242 4', 11, 'the caret follows the new gap'],
    ['4242 9424', 6, formatCardNumber, '4242 9424', 6, 'an insert in the middle keeps the caret after the inserted digit'],
    ['42429 4242', 5, formatCardNumber, '4242 9424 2', 6, 'an insert before a gap jumps the space'],
    ['4242 424', 0, formatCardNumber, '4242 424', 0, 'a caret at the start stays there'],
    ['4', 1, formatExpiry, '04 / ', 5, 'padding and separator put the caret at the end'],
    ['12 / 25', 1, formatExpiry, '12 / 25', 1, 'a caret inside the month stays inside it'],
  ])('reformats %j with caret %i into %j with caret %i (%s)', (value, caret, format, expected, expectedCaret) => {
    expect(formatKeepingCaret(value, caret, format)).toEqual({ value: expected, caret: expectedCaret });
  });
});
