/** Polls `condition` every `intervalMs` until it holds; throws naming `what` after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, options: { intervalMs?: number; timeoutMs?: number } = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, options.intervalMs ?? 20));
  }
}
