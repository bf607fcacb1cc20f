import { createHmac, randomFillSync } from 'node:crypto';
import { GENERATED_ID_RANDOM_LENGTH, ID_PREFIX, type IdKind } from '../../../protocol/ids';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Generates ids and random secrets; injected so tests may make them deterministic. */
export interface IdGenerator {
  /** A prefixed id such as `pay_` + 20 base62 characters. */
  id(kind: IdKind): string;
  /** `length` base62 characters from a cryptographically secure source. */
  secret(length: number): string;
}

/**
 * Bytes from node:crypto's CSPRNG, drawn 4 KB at a time: a call per character (randomInt) cost more than the ids it
 * made, some 0.5 us each, 13 to 24 times per id or secret. Node's own randomUUID keeps such a cache too.
 */
const randomPool = Buffer.alloc(4096);
let randomPoolOffset = randomPool.length;

function randomByte(): number {
  if (randomPoolOffset === randomPool.length) {
    randomFillSync(randomPool);
    randomPoolOffset = 0;
  }
  return randomPool[randomPoolOffset++]!;
}

/** Bytes of 248 (4 x 62) and above are drawn again, so that `byte % 62` gives every character the same chance. */
const UNBIASED_BYTE_LIMIT = 248;

/** Unbiased base62 from node:crypto. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < UNBIASED_BYTE_LIMIT) out += BASE62[byte % 62];
  }
  return out;
}

/**
 * The kinds written at payment rate whose generated ids start with the time. An id is its table's key, and a
 * random key puts every insert on another leaf of the key's index: under load each COMMIT then wrote one WAL page
 * per insert per index, and most of a COMMIT's cost is those page writes. Ids that start with the time land on
 * the same last leaves (1.12x calls/s, 0.89x CPU per call on SQLite in a same-window A/B). Kinds that a caller may
 * hold as a reference to something not its own (tokens, sessions, invitations, keys) stay wholly random.
 */
const TIME_ORDERED_KINDS: ReadonlySet<IdKind> = new Set<IdKind>(['payment', 'attempt', 'event', 'refund']);

/** Characters of the time part: base62 in byte order, so that text order (SQLite's, and PostgreSQL's C collation) is time order. */
const ORDERED_BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^7 ms is some 111 years: the time part of 7 characters wraps in 2081. */
const TIME_LENGTH = 7;

/** `TIME_LENGTH` base62 characters of the milliseconds since the epoch, in byte order. */
export function timeBase62(ms: number): string {
  let out = '';
  let rest = Math.floor(ms);
  for (let i = 0; i < TIME_LENGTH; i += 1) {
    out = ORDERED_BASE62[rest % 62]! + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

/**
 * The kinds whose ids are derived: the objects a request creates, whose id tells a re-run that the object exists.
 * Events, attempts and keys stay random: side work a re-run may do differently must never reuse a first run's id.
 */
const DERIVED_KINDS: ReadonlySet<IdKind> = new Set<IdKind>(['payment', 'refund', 'customer', 'collection', 'settlement', 'dispute', 'file', 'paymentMethod', 'mandate', 'subscription', 'holdChangeRequest']);

/**
 * How a claim's request derives ids from its time (`derivedIds`). 1, claims stored before migration 0026: the time
 * starts the ids of TIME_ORDERED_KINDS only, so a key reused after its expiry with the same request derived the first
 * use's ids of every other kind, found those objects and answered them. 2: the time is hashed into every other
 * derived id too, so a reused key's new request creates new objects of every kind. A claim's re-runs keep its scheme.
 */
export type IdsScheme = 1 | 2;
/** The scheme of new claims. */
export const CURRENT_IDS_SCHEME: IdsScheme = 2;

/**
 * An IdGenerator whose ids of created objects (DERIVED_KINDS) are derived from `seed`: the n-th id of each kind is a
 * function of the seed, the kind and n, instead of drawn at random. An Idempotency-Key request runs with one, seeded
 * by its key and request: if the process dies after the effect committed but before the answer was stored, the
 * retry generates the same ids, finds the object already there, and answers it instead of creating a second one.
 * Other kinds and secrets come from `base`. One generator per request: it counts the ids it has given.
 *
 * `time` (the claim's, which its re-runs keep) starts the derived ids of TIME_ORDERED_KINDS, as it starts their
 * random ids, then 13 characters of the HMAC: a keyed payment's insert lands on its index's last leaves like any
 * other. Without it (claims stored by versions before 2026-11-27) every character comes from the HMAC, as those
 * versions derived them, so that their re-runs find what they created.
 */
export function derivedIds(seed: string, base: IdGenerator, time: Date | null = null, scheme: IdsScheme = CURRENT_IDS_SCHEME): IdGenerator {
  const counters = new Map<IdKind, number>();
  const timePart = time === null ? undefined : timeBase62(time.getTime());
  const timeLabel = time !== null && scheme === 2 ? `:${time.getTime()}` : '';
  return {
    id: (kind) => {
      if (!DERIVED_KINDS.has(kind)) return base.id(kind);
      const n = (counters.get(kind) ?? 0) + 1;
      counters.set(kind, n);
      if (timePart !== undefined && TIME_ORDERED_KINDS.has(kind)) {
        return `${ID_PREFIX[kind]}_${timePart}${hmacBase62(seed, `${kind}:${n}`, GENERATED_ID_RANDOM_LENGTH - TIME_LENGTH)}`;
      }
      return `${ID_PREFIX[kind]}_${hmacBase62(seed, `${kind}:${n}${timeLabel}`, GENERATED_ID_RANDOM_LENGTH)}`;
    },
    secret: (length) => base.secret(length),
  };
}

/** `length` (at most 32) base62 characters of HMAC-SHA512(key, label): the same for the same key and label. */
export function hmacBase62(key: string | Buffer, label: string, length: number): string {
  const digest = createHmac('sha512', key).update(label).digest();
  let out = '';
  // Two bytes per character (64 bytes cover 32 characters) keep the modulo bias below 0.1 %; ids are names, not secrets.
  for (let i = 0; i < length; i += 1) out += BASE62[digest.readUInt16BE(i * 2) % 62];
  return out;
}

/**
 * Ids of TIME_ORDERED_KINDS: the time, then 13 random characters (77 bits: no two ids of one millisecond collide in
 * practice); the others: 20 random characters. Both are the prefix plus 20 base62 characters of api-conventions.
 */
export const cryptoIds: IdGenerator = {
  id: (kind) =>
    TIME_ORDERED_KINDS.has(kind)
      ? `${ID_PREFIX[kind]}_${timeBase62(Date.now())}${randomBase62(GENERATED_ID_RANDOM_LENGTH - TIME_LENGTH)}`
      : `${ID_PREFIX[kind]}_${randomBase62(GENERATED_ID_RANDOM_LENGTH)}`,
  secret: (length) => randomBase62(length),
};
