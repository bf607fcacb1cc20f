/**
 * The statements PostgreSQL keeps prepared on each pooled connection: the SQL that compiledOnce compiles (the
 * statements of the payment path). Kysely sends every query unnamed, which PostgreSQL parses, analyses and plans
 * again at each execution, CPU of the database's on the same machine. Named, it does that once per connection and
 * then binds and executes; after five executions it may keep a generic plan, which is why only these statements
 * are named: lookups by key and inserts, whose plan does not depend on the values (the sweeps, which read partial
 * indexes, stay unnamed and are planned with their values). Each connection also has PostgreSQL describe their rows
 * once, where pg would at every execution: 0.74x the instructions per API call of the server process without an
 * Idempotency-Key, 0.86x with one (bench/instructions.ts; docs/benchmarks-reading.md, thirty-fifth session).
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

/** The part of a pg client that is patched: query(text, values), and the connection its queries are sent on. */
interface QueryingClient {
  query: (...args: never[]) => unknown;
  connection?: unknown;
}

/** A column of a RowDescription, as pg's parser gives it. */
type FieldDescription = object;

/** The members of pg's Query (lib/query.js) that a statement kept prepared overrides or calls. */
interface PgQuery {
  name: string | undefined;
  prepare(connection: PgConnection): void;
  hasBeenParsed(connection: PgConnection): boolean;
  handleRowDescription(message: { fields: FieldDescription[] }): void;
  handleReadyForQuery(connection: PgConnection): void;
}

/** pg's Connection (lib/connection.js): describe() is what a known statement skips. */
interface PgConnection {
  describe(message: unknown): void;
}

type QueryCallback = (error: Error | null, result: unknown) => void;
type PgQueryClass = new (text: string, values: unknown[], callback: QueryCallback) => PgQuery;

/**
 * The row description of each statement kept prepared, per connection, once an execution has completed on it: the
 * columns of a prepared statement cannot change while it exists (PostgreSQL fails its execution instead: "cached plan
 * must not change result type"). null: a statement that returns no rows.
 */
const descriptions = new WeakMap<PgConnection, Map<string, FieldDescription[] | null>>();
/** Connections whose next describe() is that of a query whose description is known: not sent. */
const skippingDescribe = new WeakSet<PgConnection>();

function descriptionsOf(connection: PgConnection): Map<string, FieldDescription[] | null> {
  let known = descriptions.get(connection);
  if (known === undefined) {
    known = new Map();
    descriptions.set(connection, known);
  }
  return known;
}

/**
 * Has `connection` leave out the describe() of a query prepared while it is in skippingDescribe. (On a connection
 * without it, the Describe goes out and its answer sets up the same columns again: the same rows.)
 */
function skipDescribeWhenAsked(connection: PgConnection): void {
  const describe = connection.describe.bind(connection);
  connection.describe = (message: unknown) => {
    if (!skippingDescribe.has(connection)) describe(message);
  };
}

const queryClasses = new WeakMap<object, PgQueryClass>();

/**
 * pg's Query for a statement kept prepared. pg asks PostgreSQL to describe the rows at every execution (a Describe
 * before the Execute), and decodes the column names of each answer again; here the first execution on a connection
 * learns them and the next ones bind and execute only, with the learned columns given to the result as pg would.
 * Everything else (the parse on first use, the bind and its errors, the rows) is pg's own code.
 */
function preparedQueryClass(Query: new (...args: never[]) => PgQuery): PgQueryClass {
  const known = queryClasses.get(Query);
  if (known !== undefined) return known;
  const Base = Query as unknown as new (text: string, values: unknown[], callback: QueryCallback) => PgQuery;
  class PreparedStatementQuery extends Base {
    #learning = false;
    #fields: FieldDescription[] | null = null;

    override prepare(connection: PgConnection): void {
      const fields = this.hasBeenParsed(connection) ? descriptions.get(connection)?.get(this.name as string) : undefined;
      if (fields === undefined) {
        this.#learning = true;
        super.prepare(connection);
        return;
      }
      // What PostgreSQL's RowDescription would have set up, before any row of this execution arrives.
      if (fields !== null) super.handleRowDescription({ fields });
      skippingDescribe.add(connection);
      try {
        super.prepare(connection);
      } finally {
        skippingDescribe.delete(connection);
      }
    }

    override handleRowDescription(message: { fields: FieldDescription[] }): void {
      if (this.#learning) this.#fields = message.fields;
      super.handleRowDescription(message);
    }

    override handleReadyForQuery(connection: PgConnection): void {
      // Called for an execution that completed only: pg hands a failed one its error instead, and not this.
      if (this.#learning) descriptionsOf(connection).set(this.name as string, this.#fields);
      super.handleReadyForQuery(connection);
    }
  }
  queryClasses.set(Query, PreparedStatementQuery);
  return PreparedStatementQuery;
}

/**
 * Has a pg client send the statements kept prepared under their names: Kysely's PostgreSQL driver calls
 * `client.query(sql, parameters)`, which becomes a query of that name, described once per connection (above).
 * `Query` is the client's pg's Query class. The query is made from the text as pg makes an unnamed one: given a
 * `{ name, text, values }` configuration, pg copies it property by property (`cloneQueryConfig`) at every call.
 */
export function sendPreparedByName(client: QueryingClient, Query: new (...args: never[]) => unknown): void {
  const PreparedQuery = preparedQueryClass(Query as new (...args: never[]) => PgQuery);
  if (client.connection !== undefined) skipDescribeWhenAsked(client.connection as PgConnection);
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((...args: unknown[]) => {
    const [text, values] = args;
    const name = typeof text === 'string' && Array.isArray(values) && args.length === 2 ? names.get(text) : undefined;
    if (name === undefined) return query(...args);
    return new Promise((resolve, reject) => {
      const prepared = new PreparedQuery(text as string, values as unknown[], (error, result) => (error ? reject(error) : resolve(result)));
      prepared.name = name;
      query(prepared);
    }).catch((error: Error) => {
      // As pg does for its own promises: taken in a promise reaction, the stack leads back to the caller's awaits,
      // not to the socket's read.
      Error.captureStackTrace(error);
      throw error;
    });
  }) as QueryingClient['query'];
}
