/**
 * The statements PostgreSQL keeps prepared on each pooled connection: the SQL that compiledOnce compiles (the
 * statements of the payment path). Kysely sends every query unnamed, which PostgreSQL parses, analyses and plans
 * again at each execution, CPU of the database's on the same machine. Named, it does that once per connection and
 * then binds and executes; after five executions it may keep a generic plan, which is why only these statements
 * are named: lookups by key and inserts, whose plan does not depend on the values (the sweeps, which read partial
 * indexes, stay unnamed and are planned with their values).
 */
const names = new Map<string, string>();

/** Names `sql` for PostgreSQL to keep prepared (compiled-query.ts, when it compiles a statement). */
export function keepPrepared(sql: string): void {
  if (!names.has(sql)) names.set(sql, `rail_${names.size + 1}`);
}

/** The prepared statement name of `sql`, if it is one of those kept prepared. */
export function preparedNameOf(sql: string): string | undefined {
  return names.get(sql);
}

/** The part of a pg client that is patched: query(text, values). */
interface QueryingClient {
  query: (...args: never[]) => unknown;
}

/**
 * Has a pg client send the statements kept prepared under their names: Kysely's PostgreSQL driver calls
 * `client.query(sql, parameters)`, which becomes `client.query({ name, text, values })` for those.
 */
export function sendPreparedByName(client: QueryingClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((...args: unknown[]) => {
    const [text, values] = args;
    const name = typeof text === 'string' && Array.isArray(values) && args.length === 2 ? names.get(text) : undefined;
    return name === undefined ? query(...args) : query({ name, text, values });
  }) as QueryingClient['query'];
}
