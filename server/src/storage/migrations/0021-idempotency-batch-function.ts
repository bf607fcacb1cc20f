import { PostgresAdapter, sql, type Kysely, type Migration } from 'kysely';

/** The function's name, as storage/idempotency/postgres-batched-writes.ts calls it. */
export const IDEMPOTENCY_BATCH_FUNCTION = 'rail_idempotency_write_batch';

/**
 * PostgreSQL: the batch of Idempotency-Key claims and answers (storage/idempotency/postgres-batched-writes.ts) as a
 * function whose two statements are planned once per connection. Sent as one prepared statement, the batch was
 * planned again at every execution: PostgreSQL keeps a prepared statement's generic plan only when it does not look
 * dearer than the plans made for each call's values, and a plan that knows the arrays' lengths (two answers, say)
 * always looks cheaper than one that assumes ten. pg_stat_statements read 218 us of planning and 316 us of execution
 * per batch under the closed loop with a key on every call, about a tenth of the database's CPU. The function's
 * `plan_cache_mode` makes its statements keep their generic plans (PL/pgSQL prepares them once per session); the
 * statement that calls it has nothing to plan.
 *
 * The generic plans are those the batch was written for: an unnest of array parameters is estimated at 10 rows, so
 * the answers' update joins on the key's index whatever the table's size; the claims' insert joins nothing.
 * synchronous_commit goes off for the calling transaction only (set_config's third argument), as before: the
 * function's own SET clause is undone at its return, a transaction-local setting of another variable is not.
 *
 * The columns are those of idempotency_keys as of migration 0018; a later change to that table changes this function
 * in a migration of its own (0026: createIdempotencyBatchFunction).
 */
export const migration0021IdempotencyBatchFunction: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    await createIdempotencyBatchFunction(db, { idsScheme: false });
  },

  async down(db: Kysely<unknown>): Promise<void> {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    await sql`drop function if exists ${sql.raw(IDEMPOTENCY_BATCH_FUNCTION)}(json, text[], text[], text[], text[], text[], int[], text[], text[])`.execute(db);
  },
};

/**
 * Creates (or replaces) the function with the claims' columns of migration 0018, and `ids_scheme` from each claim's
 * `idsScheme` once migration 0026 has added it: an instance of an earlier version, whose claims do not carry it,
 * then writes null (scheme 1), as it derived its ids.
 */
export async function createIdempotencyBatchFunction(db: Kysely<unknown>, options: { idsScheme: boolean }): Promise<void> {
  const schemeColumn = sql.raw(options.idsScheme ? ', ids_scheme' : '');
  const schemeValue = sql.raw(options.idsScheme ? ', c."idsScheme"' : '');
  const schemeField = sql.raw(options.idsScheme ? ', "idsScheme" int' : '');
  await sql`create or replace function ${sql.raw(IDEMPOTENCY_BATCH_FUNCTION)}(
  claims json,
  answer_account_id text[], answer_mode text[], answer_key_kind text[], answer_key text[], answer_claim_token text[],
  answer_response_status int[], answer_response_headers text[], answer_response_body text[]
) returns setof text language plpgsql set plan_cache_mode = force_generic_plan as $$
begin
  perform set_config('synchronous_commit', 'off', true);
  return query
  with answered as (
    update idempotency_keys as k
    set status = 'done', response_status = a.response_status, response_headers = a.response_headers, response_body = a.response_body
    from unnest(answer_account_id, answer_mode, answer_key_kind, answer_key, answer_claim_token, answer_response_status,
      answer_response_headers, answer_response_body)
      as a(account_id, mode, key_kind, idempotency_key, claim_token, response_status, response_headers, response_body)
    where k.account_id = a.account_id and k.mode = a.mode and k.key_kind = a.key_kind and k.idempotency_key = a.idempotency_key
      and k.claim_token = a.claim_token and k.status = 'in_flight'
    returning k.claim_token
  ), claimed as (
    insert into idempotency_keys (account_id, mode, key_kind, idempotency_key, request_fingerprint, request_method, request_path,
      status, claim_token, locked_at, response_status, response_headers, response_body, created_at, expires_at, ids_time${schemeColumn})
    select c."accountId", c.mode, c."keyKind", c.key, c.fingerprint, c.method, c.path, 'in_flight', c."claimToken", c."lockedAt",
      null, null, null, c."createdAt", c."expiresAt", c."idsTime"${schemeValue}
    from json_to_recordset(claims) as c("accountId" text, mode text, "keyKind" text, key text, fingerprint text,
      method text, path text, "claimToken" text, "lockedAt" text, "createdAt" text, "expiresAt" text, "idsTime" text${schemeField})
    on conflict do nothing
    returning idempotency_keys.claim_token
  )
  select answered.claim_token from answered union all select claimed.claim_token from claimed;
end
$$`.execute(db);
}
