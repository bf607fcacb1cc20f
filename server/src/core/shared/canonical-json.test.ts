import { createHash } from 'node:crypto';
import { expect, test } from 'vitest';
import { canonicalJson, fingerprint } from './canonical-json';

/** The definition of the canonical text, written out: it must not change (fingerprints are stored and compared). */
function reference(value: unknown): string {
  const sortKeys = (inner: unknown): unknown => {
    if (Array.isArray(inner)) return inner.map(sortKeys);
    if (typeof inner === 'object' && inner !== null) {
      const out = Object.create(null) as Record<string, unknown>;
      for (const key of Object.keys(inner).sort()) {
        const item = (inner as Record<string, unknown>)[key];
        if (item !== undefined) out[key] = sortKeys(item);
      }
      return out;
    }
    return inner;
  };
  return JSON.stringify(sortKeys(value));
}

const EDGE_TEXTS = [
  '{}',
  '[]',
  '{"b":1,"a":2}',
  '{"a":2,"b":1}',
  '{"amount":10000,"currency":"INR","payment_method_data":{"upi":{"upi_collect":{"vpa_id":"success@upi"}}}}',
  '{"z":[3,[2,[1,{"y":1,"x":[]}]],{}],"a":[[[]]]}',
  '{"n":[1e21,1e-7,-0,0.1,123456789012345680000,5e-324,1.7976931348623157e308,-1.5e-10,0]}',
  '{"é":1,"e":2,"日本":3,"😀":4,"\\ud83d\\ude00x":5,"Z":6,"_":7,"-":8," ":9,"":10}',
  '{"s":"line\\nbreak \\"quoted\\" back\\\\slash \\u0001 \\u001f \\u007f \\u2028 \\u2029 \\ud800 lone \\udfff"}',
  '{"a\\"b":1,"a\\\\b":2,"a\\nb":3,"a\\u0000b":4,"\\ud800":5}',
  '{"10":"ten","9":"nine","b":"bee","1":"one","0":"zero","01":"lead","-1":"neg","1.5":"frac","a":"a"}',
  '{"4294967294":"max index","4294967295":"not an index","4294967296":"above","99999999999":"long","00":"zeros"}',
  '{"__proto__":{"polluted":true},"constructor":1,"toString":2,"hasOwnProperty":3}',
  '{"toJSON":"not a function","valueOf":null}',
  '{"t":true,"f":false,"n":null,"nested":{"deep":{"deeper":{"deepest":[null,true,false,"",0]}}}}',
  '[{"b":1,"a":2},{"a":2,"b":1},[{"d":{"c":0}}]]',
  '"just a string"',
  '42',
  'null',
  'true',
];

test('JSON.parse values: the same text as the definition (unicode, escapes, numbers, nesting, index-like keys, __proto__)', () => {
  for (const text of EDGE_TEXTS) {
    const value = JSON.parse(text) as unknown;
    expect(canonicalJson(value), text).toBe(reference(value));
  }
  // Spelled out: keys sorted, array-index keys first in numeric order (as the sorted copy lists them), -0 as 0.
  expect(canonicalJson(JSON.parse('{"b":[-0,1e21],"10":1,"9":2,"a":{"d":1,"c":2}}'))).toBe('{"9":2,"10":1,"a":{"c":2,"d":1},"b":[0,1e+21]}');
});

test('values built in code: undefined members dropped, undefined items and holes null, other kinds written as before', () => {
  // eslint-disable-next-line no-sparse-arrays
  const sparse = [1, , 3];
  const withToJson = { a: 1, toJSON: () => 'replaced' };
  const nullPrototype = Object.assign(Object.create(null) as Record<string, unknown>, { b: 1, a: [undefined, 2] });
  const values: unknown[] = [
    { b: undefined, a: 1 },
    [undefined, 1, { c: undefined }],
    sparse,
    { nan: Number.NaN, inf: Number.POSITIVE_INFINITY, ninf: -Infinity, neg: -0 },
    { date: new Date(0), list: [new Date(1)] },
    { fn: () => 1, list: [() => 2, Symbol('s')], sym: Symbol('t') },
    withToJson,
    { inner: withToJson },
    nullPrototype,
    { boxed: Object('text') as unknown, n: Object(1) as unknown },
    new Map([['a', 1]]),
    new Uint8Array([3, 1]),
    Object.assign([2, 1], { extra: 'ignored' }),
    undefined,
  ];
  for (const value of values) expect(canonicalJson(value)).toBe(reference(value));
});

test('random JSON values: the same text as the definition', () => {
  let seed = 12345;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const pieces = ['a', 'b', 'Z', '0', '9', '10', '-', 'é', '😀', '\\n', '"', '\ud800', ' ', '__proto__', 'toJSON'];
  const randomString = () => Array.from({ length: Math.floor(random() * 4) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
  const randomValue = (depth: number): unknown => {
    const pick = Math.floor(random() * (depth > 3 ? 4 : 6));
    if (pick === 0) return randomString();
    if (pick === 1) return [0, -0, 1e21, 1e-7, 3.14, -2, 2 ** 53][Math.floor(random() * 7)];
    if (pick === 2) return random() < 0.5;
    if (pick === 3) return null;
    if (pick === 4) return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(depth + 1));
    const out: Record<string, unknown> = {};
    for (let i = Math.floor(random() * 5); i > 0; i -= 1) out[randomString()] = randomValue(depth + 1);
    return out;
  };
  for (let i = 0; i < 2000; i += 1) {
    const value = JSON.parse(JSON.stringify(randomValue(0))) as unknown;
    expect(canonicalJson(value)).toBe(reference(value));
  }
});

test('fingerprint is the SHA-256 hex of the canonical text', () => {
  const value = { b: 1, a: 'ü' };
  expect(fingerprint(value)).toBe(createHash('sha256').update('{"a":"ü","b":1}').digest('hex'));
});
