/**
 * The Luhn (mod 10) check digit of a card number, shared by the frame's card form, the vault's schema and the
 * server's raw-card-number guard. Digits only: an empty string or any non-digit fails. Free of zod, so the frame
 * can import it without growing its bundle.
 * @example passesLuhn('4242424242424242') // true
 */
export function passesLuhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}
