/** Bank transfer references the simulators give payers: unique, short, and safe from a bank's upper case. */

/** The characters of a generated id after its prefix (kernel/ids.ts): 20 base62 characters. */
const ID_CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_RANDOM_LENGTH = 20;
/** Crockford's base32: digits and capitals without I, L, O and U, which a payer (or a bank) cannot confuse or fold. */
const REFERENCE_CHARACTERS = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** 32^24 = 2^120 > 62^20: every id has a reference of its own, of one length. */
const REFERENCE_LENGTH = 24;

/**
 * The reference a payer quotes on a bank transfer (or a mobile money payment to a business number) for the object of
 * this generated id (a collection; a simulated transfer, `sim_` + 20): `RAIL` and the id's 20 base62 characters as one number in 24
 * characters of Crockford base32, 28 in all (within the 35 of ISO 20022 references). Banks fold case and payers
 * mistype, so the id cannot be quoted as it is, and a shorter cut of it, or a short random draw, is shared by another
 * object sooner or later, whose transfer it would credit to this one: this is the whole id, written another way, so
 * two objects never share a reference.
 */
export function transferReferenceOf(generatedId: string): string {
  const characters = generatedId.slice(generatedId.indexOf('_') + 1);
  if (characters.length !== ID_RANDOM_LENGTH) throw new Error('not a generated id');
  let value = 0n;
  for (const character of characters) {
    const digit = ID_CHARACTERS.indexOf(character);
    if (digit < 0) throw new Error('not a generated id');
    value = value * 62n + BigInt(digit);
  }
  let reference = '';
  for (let i = 0; i < REFERENCE_LENGTH; i += 1) {
    reference = REFERENCE_CHARACTERS[Number(value % 32n)]! + reference;
    value /= 32n;
  }
  return `RAIL${reference}`;
}
