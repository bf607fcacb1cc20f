import { PUBLISHABLE_KEY_QUERY_NAME } from '../../../../protocol/ids';

/** The key from `api-key`, else from `Authorization: Bearer <key>` (the `key` query parameter comes after both). */
export function readApiKey(apiKeyHeader: string | undefined, authorization: string | undefined): string | undefined {
  if (apiKeyHeader !== undefined && apiKeyHeader.trim() !== '') return apiKeyHeader.trim();
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}

/** The `key` query parameter as sent, on a GET or HEAD: where a browser's GET carries its publishable key. */
export function queryKeyAsSent(method: string, query: (name: string) => string | undefined): string | undefined {
  return method === 'GET' || method === 'HEAD' ? query(PUBLISHABLE_KEY_QUERY_NAME) : undefined;
}
