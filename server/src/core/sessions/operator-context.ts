import type { AccountRecord } from '../../storage/accounts/records';
import type { OperatorRecord, OperatorSessionRecord } from '../../storage/operators/records';

/** Who is calling with an operator session token: the session, its operator and their account. */
export interface OperatorContext {
  session: OperatorSessionRecord;
  operator: OperatorRecord;
  account: AccountRecord;
}
