import type { InsertResult } from '../../kernel/store-types';
import type { OperatorInvitationRecord, OperatorRecord, OperatorSessionRecord, SecurityEmailRecord, TwoFactorResetRecord } from './records';

export interface OperatorStore {
  insertOperator(operator: OperatorRecord): Promise<InsertResult>;
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
  /** Sets a new TOTP secret only while none is enrolled; false when one is (enrolment happens once per reset). */
  enrollTotpSecret(operatorId: string, sealedSecret: string): Promise<boolean>;
  /** Clears the operator's TOTP secret and last step (an approved reset): they enrol again at their next sign-in. */
  clearTotpSecret(operatorId: string): Promise<void>;
  deleteOperator(accountId: string, operatorId: string): Promise<boolean>;
}

export interface OperatorInvitationStore {
  insertInvitation(invitation: OperatorInvitationRecord): Promise<InsertResult>;
  findInvitationByTokenHash(tokenHash: string): Promise<OperatorInvitationRecord | undefined>;
  /** Marks the invitation used, only if it was not and has not expired; false otherwise (a link works once). */
  acceptInvitation(invitationId: string, at: Date): Promise<boolean>;
  /** Ends the pending invitations an operator sent (they were removed). */
  expireInvitationsBy(operatorId: string, at: Date): Promise<void>;
}

export interface TwoFactorResetStore {
  insertReset(reset: TwoFactorResetRecord): Promise<InsertResult>;
  findReset(accountId: string, resetId: string): Promise<TwoFactorResetRecord | undefined>;
  /** Approves a pending, unexpired reset; false when it was approved already or has expired. */
  approveReset(resetId: string, approvedBy: string, at: Date): Promise<boolean>;
  /** Ends the pending resets an operator asked for (they were removed). */
  expireResetsRequestedBy(operatorId: string, at: Date): Promise<void>;
}

export interface OperatorSessionStore {
  insertSession(session: OperatorSessionRecord): Promise<InsertResult>;
  findSessionByTokenHash(tokenHash: string): Promise<OperatorSessionRecord | undefined>;
  markSessionVerified(sessionId: string, at: Date): Promise<void>;
  endSession(sessionId: string, at: Date): Promise<void>;
  /** Drops the two-factor verification of every session of an operator (their second factor was reset). */
  clearVerificationsOf(operatorId: string): Promise<void>;
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
  operatorInvitations: OperatorInvitationStore;
  twoFactorResets: TwoFactorResetStore;
}
