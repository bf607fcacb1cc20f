import { hash } from 'node:crypto';

/** JSON with object keys sorted at every level and undefined members dropped: equal values, equal text. */
export function canonicalJson(value: unknown): string {
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

/** SHA-256 hex of the canonical JSON: a request fingerprint. */
export function fingerprint(value: unknown): string {
  return hash('sha256', canonicalJson(value), 'hex');
}

/** Deep equality of JSON values, treating null and a missing value alike. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a ?? null) === canonicalJson(b ?? null);
}
