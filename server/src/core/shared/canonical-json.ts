import { hash } from 'node:crypto';

/** JSON with object keys sorted at every level and undefined members dropped: equal values, equal text. */
export function canonicalJson(value: unknown): string {
  if (isSortedPlainJson(value)) return JSON.stringify(value);
  return plainCanonicalJson(value) ?? sortedCopyJson(value);
}

/**
 * The definition: a copy with sorted keys, then JSON.stringify. Used as it stands for whatever plainCanonicalJson
 * leaves to it (values that are not plain JSON data), so the text of every value stays what it always was: stored
 * request fingerprints are compared with the text of later requests.
 */
function sortedCopyJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null) {
    // A null-prototype object: a `__proto__` member (JSON.parse makes it an own property) stays a member.
    const out = Object.create(null) as Record<string, unknown>;
    for (const key of Object.keys(value).sort()) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) out[key] = sortKeys(item);
    }
    return out;
  }
  return value;
}

/**
 * The same text as sortedCopyJson, written in one walk without the copy, for plain JSON data (what JSON.parse and
 * the validators return: strings, numbers, booleans, null, arrays and objects of Object's or no prototype);
 * undefined for anything else (functions, bigints, symbols, class instances such as Date), which sortedCopyJson
 * then writes.
 */
function plainCanonicalJson(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      // JSON.stringify's own rule (-0 is "0", 1e21 is "1e+21"; NaN and the infinities are null).
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (Array.isArray(value)) {
    if (prototype !== Array.prototype) return undefined;
    let out = '[';
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      // An undefined item (or a hole) is null in JSON.stringify's arrays.
      const text = item === undefined ? 'null' : plainCanonicalJson(item);
      if (text === undefined) return undefined;
      out += i === 0 ? text : `,${text}`;
    }
    return `${out}]`;
  }
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const record = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const key of memberOrder(Object.keys(record))) {
    const item = record[key];
    if (item === undefined) continue;
    const text = plainCanonicalJson(item);
    if (text === undefined) return undefined;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
    first = false;
  }
  return `${out}}`;
}

/**
 * Whether JSON.stringify writes `value` as it is exactly as sortedCopyJson would: plain JSON data, nothing undefined,
 * and the keys of each object already in sorted order (none an array index, whose place an object chooses itself).
 * Bodies sent by clients that sort their keys, and small ones, take this path.
 */
function isSortedPlainJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (Array.isArray(value)) {
    if (prototype !== Array.prototype || 'toJSON' in value) return false;
    for (let i = 0; i < value.length; i += 1) {
      if (!(i in value) || !isSortedPlainJson(value[i])) return false;
    }
    return true;
  }
  if ((prototype !== Object.prototype && prototype !== null) || 'toJSON' in value) return false;
  const record = value as Record<string, unknown>;
  let previous: string | undefined;
  for (const key of Object.keys(record)) {
    const lead = key.charCodeAt(0);
    if ((previous !== undefined && !(previous < key)) || (lead >= 48 && lead <= 57)) return false;
    if (!isSortedPlainJson(record[key])) return false;
    previous = key;
  }
  return true;
}

/** Largest array index (2^32 - 2): such keys are listed first by every object, in numeric order. */
const MAX_ARRAY_INDEX = 4_294_967_294;
const ARRAY_INDEX_FORM = /^(?:0|[1-9]\d{0,9})$/;

/**
 * The order in which JSON.stringify writes the members of sortKeys' copy: its keys were inserted sorted, but an
 * object lists the keys that are array indices first, in numeric order (`{"10":…,"9":…}` comes out 9 before 10).
 */
function memberOrder(keys: string[]): string[] {
  keys.sort();
  let indices: string[] | undefined;
  let names: string[] | undefined;
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    const lead = key.charCodeAt(0);
    if (lead >= 48 && lead <= 57 && ARRAY_INDEX_FORM.test(key) && Number(key) <= MAX_ARRAY_INDEX) {
      indices ??= [];
      names ??= keys.slice(0, i);
      indices.push(key);
    } else if (names !== undefined) {
      names.push(key);
    }
  }
  if (indices === undefined || names === undefined) return keys;
  indices.sort((a, b) => Number(a) - Number(b));
  return indices.concat(names);
}

/** SHA-256 hex of the canonical JSON: a request fingerprint. */
export function fingerprint(value: unknown): string {
  return hash('sha256', canonicalJson(value), 'hex');
}

/** Deep equality of JSON values, treating null and a missing value alike. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a ?? null) === canonicalJson(b ?? null);
}
