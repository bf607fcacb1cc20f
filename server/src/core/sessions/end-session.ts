import type { CoreDeps } from '../shared/deps';
import type { OperatorContext } from './operator-context';

/** DELETE /v1/sessions: the token stops working at once, on every instance. */
export async function endSession(deps: CoreDeps, context: OperatorContext): Promise<void> {
  await deps.store.operatorSessions.endSession(context.session.sessionId, deps.clock.now());
}
