import type { ApiScope } from '../../../../protocol/api/keys';

export interface OperatorRecord {
  operatorId: string;
  accountId: string;
  email: string;
  /** scrypt hash (core/auth/secrets.ts). */
  passwordHash: string;
  /**
   * The TOTP secret sealed with the vault key (vault/operator-secret-box.ts); never the base32 text. Empty while the
   * operator has not enrolled (an accepted invitation, an approved reset).
   */
  totpSecret: string;
  scopes: readonly ApiScope[];
  /** The last RFC 6238 time step a code was accepted for: a code is good once. */
  totpLastStep: number | null;
  createdAt: Date;
}

export interface OperatorSessionRecord {
  sessionId: string;
  accountId: string;
  operatorId: string;
  /** SHA-256 of the session token; the token itself is never stored. */
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
  /** The last two-factor verification; key management is open while it is fresh. */
  verifiedAt: Date | null;
  endedAt: Date | null;
}

export interface SecurityEmailRecord {
  emailId: string;
  accountId: string;
  to: string;
  subject: string;
  body: string;
  createdAt: Date;
  nextAttemptAt: Date;
  attempts: number;
  sentAt: Date | null;
  lastError: string | null;
}

export interface OperatorInvitationRecord {
  invitationId: string;
  accountId: string;
  email: string;
  scopes: readonly ApiScope[];
  /** SHA-256 of the one-time token in the invitation link. */
  tokenHash: string;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
}

export interface TwoFactorResetRecord {
  resetId: string;
  accountId: string;
  /** The operator whose two-factor is reset. */
  operatorId: string;
  requestedBy: string;
  createdAt: Date;
  expiresAt: Date;
  approvedBy: string | null;
  approvedAt: Date | null;
}
