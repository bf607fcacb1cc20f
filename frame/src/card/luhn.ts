/**
 * Checks the Luhn (mod 10) check digit of a card number. Input must be digits only; an empty
 * string or any non-digit fails.
 * @example passesLuhn('4242424242424242') // true
 */
export function passesLuhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}
