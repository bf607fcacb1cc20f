import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { passesLuhn } from '../../../../protocol/luhn';
import { containsRawCardNumber, looksLikeCardNumber } from './card-number-guard';

/** Appends the Luhn check digit to a digit string. */
function withCheckDigit(body: string): string {
  for (let d = 0; d <= 9; d += 1) if (passesLuhn(`${body}${d}`)) return `${body}${d}`;
  throw new Error('unreachable');
}

describe('raw card number guard', () => {
  test.each(['4242424242424242', '4000000000000002', '5555555555554444', '378282246310005', '4242 4242 4242 4242', '4242-4242-4242-4242'])(
    'recognises %s',
    (pan) => expect(looksLikeCardNumber(pan)).toBe(true),
  );

  test.each(['4242424242424241', '424242424242', '12345678901234567890', 'success@upi', '', 'abcd4242424242424242'])(
    'ignores %s',
    (value) => expect(looksLikeCardNumber(value)).toBe(false),
  );

  test('any 13..19 digit Luhn-valid number is recognised (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[1-9]\d{11,17}$/), (body) => {
        expect(looksLikeCardNumber(withCheckDigit(body))).toBe(true);
      }),
    );
  });

  test('a card object with card_number is refused whatever the number', () => {
    expect(containsRawCardNumber({ card: { card_number: '1234' } })).toBe(true);
  });

  test('a Luhn-valid number anywhere inside payment_method_data is refused', () => {
    expect(containsRawCardNumber({ upi: { upi_collect: { vpa_id: '4242424242424242' } } })).toBe(true);
    expect(containsRawCardNumber({ wallet: { items: [{ x: 4242424242424242 }] } })).toBe(true);
  });

  test('UPI and token data pass', () => {
    expect(containsRawCardNumber({ upi: { upi_collect: { vpa_id: 'success@upi' } } })).toBe(false);
    expect(containsRawCardNumber({ psp_token: 'tok_abc' })).toBe(false);
  });
});
