import { describe, expect, it } from 'vitest';
import { isoString } from './clock';

describe('isoString', () => {
  it('formats as toISOString does, for instants it keeps and for ones that share their slot', () => {
    // 0, 64 and 128 ms (and -64) take the same slot of the table; 8.64e15 is the last valid instant.
    const instants = [0, 1, 64, 0, 128, -64, 1_764_988_800_000, 1_764_988_800_064, -1, 8.64e15, -8.64e15, 1_764_988_800_000, 2, 0].map((ms) => new Date(ms));
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
