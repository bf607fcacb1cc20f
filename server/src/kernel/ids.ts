import { randomInt } from 'node:crypto';
import { GENERATED_ID_RANDOM_LENGTH, ID_PREFIX, type IdKind } from '../../../protocol/ids';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Generates ids and random secrets; injected so tests may make them deterministic. */
export interface IdGenerator {
  /** A prefixed id such as `pay_` + 20 base62 characters. */
  id(kind: IdKind): string;
  /** `length` base62 characters from a cryptographically secure source. */
  secret(length: number): string;
}

/** Unbiased base62 from node:crypto (randomInt rejects out-of-range draws). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += BASE62[randomInt(62)];
  return out;
}

export const cryptoIds: IdGenerator = {
  id: (kind) => `${ID_PREFIX[kind]}_${randomBase62(GENERATED_ID_RANDOM_LENGTH)}`,
  secret: (length) => randomBase62(length),
};
