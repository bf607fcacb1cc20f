import type { MandateStatus } from '../../../../protocol/api/mandates';
import type { InsertResult, Scope } from '../../kernel/store-types';
import type { MandateFilter, MandateRecord } from './records';

export interface MandateStore {
  insertMandate(mandate: MandateRecord): Promise<InsertResult>;
  findMandate(scope: Scope, mandateId: string): Promise<MandateRecord | undefined>;
  /** Newest first. */
  listMandates(scope: Scope, filter: MandateFilter): Promise<MandateRecord[]>;
  /**
   * Moves the mandate to `to` only if its status is one of `from` (a conditional UPDATE: of concurrent revokes one
   * wins); undefined when it did not apply.
   */
  updateMandateStatusIf(scope: Scope, mandateId: string, from: readonly MandateStatus[], to: MandateStatus, now: Date): Promise<MandateRecord | undefined>;
}

export interface MandatesStores {
  mandates: MandateStore;
}
