/**
 * Hono answers a request with the first registered route that matches it, so `GET /payments/{payment_id}`
 * registered before `GET /payments/list` would answer the list. Families register their routes in any order on a
 * recorder; routeInOrder() then replays middleware first (in the order given) and routes from the most specific
 * path to the least: at the first segment where their kinds differ, a literal comes before a parameter, and a
 * parameter before a wildcard. No family can shadow another's route, whatever the order of the families list.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './env';

type App = OpenAPIHono<AppEnv>;

interface Recorded {
  kind: 'middleware' | 'route';
  /** The path's segment ranks (segmentRank), worked out once: a sort compares each entry many times. */
  ranks: number[];
  order: number;
  replay: (app: App) => void;
}

const ROUTE_METHODS = new Set(['openapi', 'get', 'post', 'put', 'delete', 'patch', 'on', 'all']);

function segmentRank(segment: string): number {
  if (segment === '*' || segment.endsWith('*')) return 2;
  if (segment.startsWith(':') || segment.startsWith('{')) return 1;
  return 0;
}

/**
 * Negative when path `a` must be registered before path `b`: segment ranks compared left to right (literal 0,
 * parameter 1, wildcard 2; a path that has ended ranks lowest). A total order, so the sort is well defined; routes of
 * equal rank keep their registration order.
 */
export function compareRoutePaths(a: string, b: string): number {
  return compareRanks(pathRanks(a), pathRanks(b));
}

function pathRanks(path: string): number[] {
  return path.split('/').map(segmentRank);
}

function compareRanks(left: readonly number[], right: readonly number[]): number {
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = (left[i] ?? -1) - (right[i] ?? -1);
    if (difference !== 0) return difference;
  }
  return 0;
}

function pathOf(method: string, args: unknown[]): string {
  if (method === 'openapi') return (args[0] as { path: string }).path;
  if (method === 'on') return String(args[1]);
  return typeof args[0] === 'string' ? args[0] : '*';
}

/**
 * Runs `register` against a recorder that looks like the app, then registers what it recorded on the app: every
 * `use` first, in order, then the routes by compareRoutePaths (stable for equal ranks).
 */
export function routeInOrder(app: App, register: (recorder: App) => void): void {
  const recorded: Recorded[] = [];
  const recorder = new Proxy(app, {
    get(target, property, receiver) {
      if (typeof property !== 'string' || (property !== 'use' && !ROUTE_METHODS.has(property))) {
        return Reflect.get(target, property, receiver) as unknown;
      }
      return (...args: unknown[]) => {
        recorded.push({
          kind: property === 'use' ? 'middleware' : 'route',
          ranks: pathRanks(pathOf(property, args)),
          order: recorded.length,
          replay: (real) => (real as unknown as Record<string, (...rest: unknown[]) => unknown>)[property]!(...args),
        });
        return recorder;
      };
    },
  });
  register(recorder);
  const middleware = recorded.filter((entry) => entry.kind === 'middleware');
  const routes = recorded.filter((entry) => entry.kind === 'route').sort((a, b) => compareRanks(a.ranks, b.ranks) || a.order - b.order);
  for (const entry of [...middleware, ...routes]) entry.replay(app);
}
