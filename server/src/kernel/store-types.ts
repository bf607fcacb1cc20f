import type { Mode } from '../../../protocol/ids';

/** Every merchant-data look-up is scoped to one account and one mode (test keys see test data only). */
export interface Scope {
  accountId: string;
  mode: Mode;
}

export type InsertResult = 'inserted' | 'duplicate';
