import type { InsertResult } from '../../kernel/store-types';
import type { OperatorRecord, OperatorSessionRecord, SecurityEmailRecord } from './records';

export interface OperatorStore {
  insertOperator(operator: OperatorRecord): Promise<InsertResult>;
  countOperators(accountId: string): Promise<number>;
  listOperators(accountId: string): Promise<OperatorRecord[]>;
  findOperatorByEmail(email: string): Promise<OperatorRecord | undefined>;
  findOperatorById(operatorId: string): Promise<OperatorRecord | undefined>;
  /** Replaces a stored TOTP secret (bootstrap seals one stored in plain text by an older version). */
  updateOperatorTotpSecret(operatorId: string, totpSecret: string): Promise<void>;
  /**
   * Records that a code of time step `step` was used, only if no code of this or a later step was: false means the
   * code was used already (a replay), on this instance or another.
   */
  claimTotpStep(operatorId: string, step: number): Promise<boolean>;
}

export interface OperatorSessionStore {
  insertSession(session: OperatorSessionRecord): Promise<InsertResult>;
  findSessionByTokenHash(tokenHash: string): Promise<OperatorSessionRecord | undefined>;
  markSessionVerified(sessionId: string, at: Date): Promise<void>;
  endSession(sessionId: string, at: Date): Promise<void>;
}

export interface SecurityEmailStore {
  insertSecurityEmail(email: SecurityEmailRecord): Promise<InsertResult>;
  /** The account's e-mails, newest first. */
  listSecurityEmails(accountId: string, limit: number): Promise<SecurityEmailRecord[]>;
  /** Unsent e-mails whose next attempt is due, oldest first. */
  listDueSecurityEmails(now: Date, limit: number): Promise<SecurityEmailRecord[]>;
  /** Moves an unsent e-mail's next attempt from `expected` to `until`; false when another instance got there first. */
  claimSecurityEmail(emailId: string, expected: Date, until: Date): Promise<boolean>;
  markSecurityEmailSent(emailId: string, at: Date): Promise<void>;
  markSecurityEmailFailed(emailId: string, error: string, nextAttemptAt: Date): Promise<void>;
}

/** The operators stores, as storage/stores.ts composes them into Stores. */
export interface OperatorsStores {
  operators: OperatorStore;
  operatorSessions: OperatorSessionStore;
  securityEmails: SecurityEmailStore;
}
