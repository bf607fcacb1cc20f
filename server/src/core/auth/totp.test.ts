import { describe, expect, test } from 'vitest';
import { matchTotpStep, totpCode, totpStep } from './totp';

// RFC 6238 appendix B, SHA-1: the secret "12345678901234567890" (base32 below); the RFC shows 8 digits, we keep 6.
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const RFC_VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP (RFC 6238)', () => {
  test.each(RFC_VECTORS)('at %i s the code is the last 6 digits of %s', (seconds, eightDigits) => {
    expect(totpCode(RFC_SECRET, totpStep(new Date(seconds * 1000)))).toBe(eightDigits.slice(-6));
  });

  test('a code matches its own step and one step either side, never two away', () => {
    const at = new Date(1_700_000_000_000);
    const step = totpStep(at);
    expect(matchTotpStep(RFC_SECRET, totpCode(RFC_SECRET, step), at)).toBe(step);
    expect(matchTotpStep(RFC_SECRET, totpCode(RFC_SECRET, step - 1), at)).toBe(step - 1);
    expect(matchTotpStep(RFC_SECRET, totpCode(RFC_SECRET, step + 1), at)).toBe(step + 1);
    expect(matchTotpStep(RFC_SECRET, totpCode(RFC_SECRET, step - 2), at)).toBeUndefined();
    expect(matchTotpStep(RFC_SECRET, '12345', at)).toBeUndefined();
  });

  test('base32 is read case-insensitively, and a secret that is not base32 is refused', () => {
    expect(totpCode(RFC_SECRET.toLowerCase(), 1)).toBe(totpCode(RFC_SECRET, 1));
    expect(() => totpCode('not base32!', 1)).toThrow(/base32/);
  });
});
