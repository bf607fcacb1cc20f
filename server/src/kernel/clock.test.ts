import { describe, expect, it } from 'vitest';
import { isoString } from './clock';

describe('isoString', () => {
  it('formats as toISOString does, for instants it keeps and for ones that share a slot', () => {
    // 8.64e15 is the last valid instant; the rest are instants a request formats together (now, +15 min, +24 h).
    const now = 1_764_988_800_000;
    const instants = [0, 1, 64, 0, -64, now, now + 900_000, now + 86_400_000, now, -1, 8.64e15, -8.64e15, now + 1, 2, 0].map((ms) => new Date(ms));
    // Every instant of a 4,096 ms window and its expiry 24 h later: some share a slot, and each still formats right.
    for (let ms = now; ms < now + 4_096; ms += 1) instants.push(new Date(ms), new Date(ms + 86_400_000));
    for (let round = 0; round < 3; round += 1) {
      for (const date of instants) expect(isoString(date)).toBe(date.toISOString());
    }
  });

  it('answers a Date changed in place by its new instant, not the kept text of its old one', () => {
    const date = new Date('2026-12-06T05:00:00.000Z');
    expect(isoString(date)).toBe('2026-12-06T05:00:00.000Z');
    date.setUTCHours(6);
    expect(isoString(date)).toBe('2026-12-06T06:00:00.000Z');
  });

  it('throws RangeError for an invalid date, as toISOString does', () => {
    expect(() => isoString(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => isoString(new Date(Number.NaN))).toThrow(RangeError);
  });
});
