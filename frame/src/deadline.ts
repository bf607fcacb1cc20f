/**
 * Converts a wait-screen timestamp to epoch milliseconds whatever its unit (seconds, ms, µs or ns),
 * since the API states only that it is an integer.
 */
export function timestampToMs(value: number): number {
  if (value > 1e17) return value / 1e6;
  if (value > 1e14) return value / 1e3;
  if (value > 1e11) return value;
  return value * 1000;
}
