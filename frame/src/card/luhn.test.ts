import { describe, expect, it } from 'vitest';
import { passesLuhn } from './luhn';

describe('passesLuhn', () => {
  it.each([
    '4242424242424242',
    '5555555555554444',
    '378282246310005',
    '36227206271667',
    '6082015309577308',
    '0',
    '18',
  ])('accepts %s', (digits) => {
    expect(passesLuhn(digits)).toBe(true);
  });

  it.each([
    ['4242424242424241', 'a wrong check digit'],
    ['4242424242424224', 'two swapped digits'],
    ['6080000000000001', 'a number one digit off'],
    ['', 'an empty string'],
    ['4242 4242 4242 4242', 'separators'],
    ['42a2', 'letters'],
  ])('rejects %j (%s)', (digits) => {
    expect(passesLuhn(digits)).toBe(false);
  });
});
