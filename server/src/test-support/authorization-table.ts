/**
 * docs/authorization.md, the checked-in authorization matrix, as data: one row per route (`METHOD /path` with
 * `{param}` segments), one cell per kind of credential (`allowed`, `n/a` or an error code). authorization.test.ts
 * sends every cell's request; rate-limit.test.ts finds the routes a browser or a stranger can reach.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const CREDENTIALS = [
  'no key',
  'malformed key',
  'unknown key',
  'revoked key',
  'secret key',
  'secret key + client_secret',
  'publishable key',
  'publishable key + client_secret',
  'publishable key + wrong client_secret',
  'ephemeral key',
  'live secret key',
  'rotating key',
  'operator session',
  'operator session + step-up',
] as const;
export type Credential = (typeof CREDENTIALS)[number];

/** Codes that mean "refused for who is calling", as opposed to an answer about the operation itself. */
export const AUTHORIZATION_CODES: ReadonlySet<string> = new Set(['ERR_1001', 'ERR_1002', 'ERR_1003', 'ERR_1004', 'ERR_1005', 'ERR_1006', 'ERR_1007', 'ERR_1008', 'ERR_1009', 'ERR_1019']);

export interface AuthorizationTable {
  /** The column names of the table's header, after `route`. */
  header: string[];
  /** The rows in the table's order; a route named twice is there twice. */
  rows: { route: string; cells: Record<Credential, string> }[];
}

export function readAuthorizationTable(): AuthorizationTable {
  const text = readFileSync(resolve(__dirname, '../../../docs/authorization.md'), 'utf8');
  const lines = text.split('\n').filter((line) => line.startsWith('| '));
  const header = lines[0]!.split('|').slice(2, -1).map((cell) => cell.trim());
  const rows = lines.slice(1).map((line) => {
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
    return { route: cells[0]!.replace(/`/g, ''), cells: Object.fromEntries(CREDENTIALS.map((credential, i) => [credential, cells[i + 1]])) as Record<Credential, string> };
  });
  return { header, rows };
}

/** Whether a cell says the credential gets past authentication (allowed, or an answer about the operation itself). */
export function passesAuthentication(cell: string): boolean {
  return cell !== 'n/a' && !AUTHORIZATION_CODES.has(cell);
}
