import type { RailAdapter } from '../../rails/rail-adapter';
import { DEFAULT_RECOVERY_POLICY, type CoreDeps } from './deps';

/** What came of a call to a rail: its answer, or nothing in time (it threw or timed out). */
export type RailCallResult<T> = { kind: 'answered'; answer: T } | { kind: 'no_answer'; error: unknown };

class RailCallTimeout extends Error {}

/**
 * Calls a rail under the recovery policy's time limit. A rail that throws or does not answer in time never leaves
 * the request without an answer: the caller answers with what is stored, and recovery asks the rail again later
 * under the reference recorded before the call.
 */
export async function callRail<T>(deps: CoreDeps, call: () => Promise<T>): Promise<RailCallResult<T>> {
  const limitMs = (deps.recovery ?? DEFAULT_RECOVERY_POLICY).railCallTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RailCallTimeout(`no answer from the rail within ${limitMs} ms`)), limitMs);
  });
  try {
    return { kind: 'answered', answer: await Promise.race([call(), timeout]) };
  } catch (error) {
    return { kind: 'no_answer', error };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether `rail` may hear of a write before that write is durable: a rail that keeps its memory in Rail's own store
 * (the simulators, RailAdapter.remembersInRailStore) writes it after that write, and the WAL is synced in order
 * (flushed in order on PostgreSQL): the sync that keeps the rail's answer keeps the write, and losing both is as if
 * the call had never been made. A rail elsewhere hears of a write only once a power loss could not make Rail forget
 * it (docs/benchmarks-reading.md, twenty-first and twenty-second sessions).
 */
export function mayCallBeforeDurable(rail: Pick<RailAdapter, 'remembersInRailStore'>): boolean {
  return rail.remembersInRailStore === true;
}

/**
 * callRail for a call that follows a write naming it (a confirm's claim and its attempt, a pending refund), whose
 * durability `written` awaits (or brings about: a PostgreSQL claim committed without waiting for its flush). The
 * call waits for it unless mayCallBeforeDurable; either way the caller still awaits it before it answers.
 */
export async function callRailAfterWrite<T>(
  deps: CoreDeps,
  rail: Pick<RailAdapter, 'remembersInRailStore'>,
  written: () => Promise<void>,
  call: () => Promise<T>,
): Promise<RailCallResult<T>> {
  if (!mayCallBeforeDurable(rail)) await written();
  return callRail(deps, call);
}
