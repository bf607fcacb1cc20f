import type { OperatorEntry } from '../../../../protocol/api/keys';
import type { OperatorContext } from '../sessions/operator-context';
import type { CoreDeps } from '../shared/deps';
import { toOperatorEntry } from './operator-view';

/** GET /v1/operators (any operator session): who can administer the account. */
export async function listOperators(deps: CoreDeps, context: OperatorContext): Promise<OperatorEntry[]> {
  return (await deps.store.operators.listOperators(context.account.accountId)).map(toOperatorEntry);
}
