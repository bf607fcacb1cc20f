/** The value at `path` inside `data` (objects and arrays), or undefined where the path leaves them. */
export function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment as string];
  }
  return current;
}
