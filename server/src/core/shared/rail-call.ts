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
