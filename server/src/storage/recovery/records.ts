import type { Mode } from '../../../../protocol/ids';
import type { Scope } from '../../kernel/store-types';

/**
 * What a rail remembers of one request, keyed by the reference Rail sent with it (an attempt id, a refund id): the
 * simulators' memory, kept in the database so that it outlives a crash of the process that asked, as a real rail's
 * would.
 */
export interface RailLedgerKey {
  accountId: string;
  mode: Mode;
  rail: string;
  /** request kind: authorize | refund */
  operation: string;
  reference: string;
}

/** An object the recovery job is working on, so that one instance at a time asks the rail about it. */
export interface RecoveryLeaseKey extends Scope {
  objectType: 'payment' | 'refund';
  objectId: string;
}
