import type { Selectable } from 'kysely';
import type { ApiScope } from '../../../../protocol/api/keys';
import type { InsertResult } from '../../kernel/store-types';
import type { OperatorInvitationRecord, OperatorRecord, OperatorSessionRecord, SecurityEmailRecord, TwoFactorResetRecord } from './records';
import type { OperatorInvitationsTable, OperatorSessionsTable, OperatorsTable, SecurityEmailsTable, TwoFactorResetsTable } from './schema';
import type { OperatorInvitationStore, OperatorSessionStore, OperatorsStores, OperatorStore, SecurityEmailStore, TwoFactorResetStore } from './store';
import { dateOrNull, type Db, insertResult, iso, isoOrNull } from '../sql-rows';

function toOperator(row: Selectable<OperatorsTable>): OperatorRecord {
  return {
    operatorId: row.operator_id,
    accountId: row.account_id,
    email: row.email,
    passwordHash: row.password_hash,
    totpSecret: row.totp_secret,
    scopes: JSON.parse(row.scopes) as ApiScope[],
    totpLastStep: row.totp_last_step === null ? null : Number(row.totp_last_step),
    createdAt: new Date(row.created_at),
  };
}

function toSession(row: Selectable<OperatorSessionsTable>): OperatorSessionRecord {
  return {
    sessionId: row.session_id,
    accountId: row.account_id,
    operatorId: row.operator_id,
    tokenHash: row.token_hash,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    verifiedAt: dateOrNull(row.verified_at),
    endedAt: dateOrNull(row.ended_at),
  };
}

function toSecurityEmail(row: Selectable<SecurityEmailsTable>): SecurityEmailRecord {
  return {
    emailId: row.email_id,
    accountId: row.account_id,
    to: row.to_address,
    subject: row.subject,
    body: row.body,
    createdAt: new Date(row.created_at),
    nextAttemptAt: new Date(row.next_attempt_at),
    attempts: Number(row.attempts),
    sentAt: dateOrNull(row.sent_at),
    lastError: row.last_error,
  };
}

class SqlOperatorStore implements OperatorStore {
  constructor(private readonly db: Db) {}

  async insertOperator(operator: OperatorRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('operators')
      .values({
        operator_id: operator.operatorId,
        account_id: operator.accountId,
        email: operator.email,
        password_hash: operator.passwordHash,
        totp_secret: operator.totpSecret,
        scopes: JSON.stringify(operator.scopes),
        totp_last_step: operator.totpLastStep,
        created_at: iso(operator.createdAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async listOperators(accountId: string): Promise<OperatorRecord[]> {
    const rows = await this.db.selectFrom('operators').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('operator_id').execute();
    return rows.map(toOperator);
  }

  async findOperatorByEmail(email: string): Promise<OperatorRecord | undefined> {
    const row = await this.db.selectFrom('operators').selectAll().where('email', '=', email).executeTakeFirst();
    return row && toOperator(row);
  }

  async findOperatorById(operatorId: string): Promise<OperatorRecord | undefined> {
    const row = await this.db.selectFrom('operators').selectAll().where('operator_id', '=', operatorId).executeTakeFirst();
    return row && toOperator(row);
  }

  async updateOperatorTotpSecret(operatorId: string, totpSecret: string): Promise<void> {
    await this.db.updateTable('operators').set({ totp_secret: totpSecret }).where('operator_id', '=', operatorId).execute();
  }

  async claimTotpStep(operatorId: string, step: number): Promise<boolean> {
    const result = await this.db
      .updateTable('operators')
      .set({ totp_last_step: step })
      .where('operator_id', '=', operatorId)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async enrollTotpSecret(operatorId: string, sealedSecret: string): Promise<boolean> {
    const result = await this.db
      .updateTable('operators')
      .set({ totp_secret: sealedSecret, totp_last_step: null })
      .where('operator_id', '=', operatorId)
      .where('totp_secret', '=', '')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async clearTotpSecret(operatorId: string): Promise<void> {
    await this.db.updateTable('operators').set({ totp_secret: '', totp_last_step: null }).where('operator_id', '=', operatorId).execute();
  }

  async deleteOperator(accountId: string, operatorId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('operators').where('account_id', '=', accountId).where('operator_id', '=', operatorId).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

}

function toInvitation(row: Selectable<OperatorInvitationsTable>): OperatorInvitationRecord {
  return {
    invitationId: row.invitation_id,
    accountId: row.account_id,
    email: row.email,
    scopes: JSON.parse(row.scopes) as ApiScope[],
    tokenHash: row.token_hash,
    invitedBy: row.invited_by,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    acceptedAt: dateOrNull(row.accepted_at),
  };
}

function toReset(row: Selectable<TwoFactorResetsTable>): TwoFactorResetRecord {
  return {
    resetId: row.reset_id,
    accountId: row.account_id,
    operatorId: row.operator_id,
    requestedBy: row.requested_by,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    approvedBy: row.approved_by,
    approvedAt: dateOrNull(row.approved_at),
  };
}

class SqlOperatorInvitationStore implements OperatorInvitationStore {
  constructor(private readonly db: Db) {}

  async insertInvitation(invitation: OperatorInvitationRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('operator_invitations')
      .values({
        invitation_id: invitation.invitationId,
        account_id: invitation.accountId,
        email: invitation.email,
        scopes: JSON.stringify(invitation.scopes),
        token_hash: invitation.tokenHash,
        invited_by: invitation.invitedBy,
        created_at: iso(invitation.createdAt),
        expires_at: iso(invitation.expiresAt),
        accepted_at: isoOrNull(invitation.acceptedAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findInvitationByTokenHash(tokenHash: string): Promise<OperatorInvitationRecord | undefined> {
    const row = await this.db.selectFrom('operator_invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    return row && toInvitation(row);
  }

  async acceptInvitation(invitationId: string, at: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('operator_invitations')
      .set({ accepted_at: iso(at) })
      .where('invitation_id', '=', invitationId)
      .where('accepted_at', 'is', null)
      .where('expires_at', '>', iso(at))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async expireInvitationsBy(operatorId: string, at: Date): Promise<void> {
    await this.db
      .updateTable('operator_invitations')
      .set({ expires_at: iso(at) })
      .where('invited_by', '=', operatorId)
      .where('accepted_at', 'is', null)
      .where('expires_at', '>', iso(at))
      .execute();
  }
}

class SqlTwoFactorResetStore implements TwoFactorResetStore {
  constructor(private readonly db: Db) {}

  async insertReset(reset: TwoFactorResetRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('two_factor_resets')
      .values({
        reset_id: reset.resetId,
        account_id: reset.accountId,
        operator_id: reset.operatorId,
        requested_by: reset.requestedBy,
        created_at: iso(reset.createdAt),
        expires_at: iso(reset.expiresAt),
        approved_by: reset.approvedBy,
        approved_at: isoOrNull(reset.approvedAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findReset(accountId: string, resetId: string): Promise<TwoFactorResetRecord | undefined> {
    const row = await this.db.selectFrom('two_factor_resets').selectAll().where('account_id', '=', accountId).where('reset_id', '=', resetId).executeTakeFirst();
    return row && toReset(row);
  }

  async expireResetsRequestedBy(operatorId: string, at: Date): Promise<void> {
    await this.db
      .updateTable('two_factor_resets')
      .set({ expires_at: iso(at) })
      .where('requested_by', '=', operatorId)
      .where('approved_at', 'is', null)
      .where('expires_at', '>', iso(at))
      .execute();
  }

  async approveReset(resetId: string, approvedBy: string, at: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('two_factor_resets')
      .set({ approved_by: approvedBy, approved_at: iso(at) })
      .where('reset_id', '=', resetId)
      .where('approved_at', 'is', null)
      .where('expires_at', '>', iso(at))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}

class SqlOperatorSessionStore implements OperatorSessionStore {
  constructor(private readonly db: Db) {}

  async insertSession(session: OperatorSessionRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('operator_sessions')
      .values({
        session_id: session.sessionId,
        account_id: session.accountId,
        operator_id: session.operatorId,
        token_hash: session.tokenHash,
        created_at: iso(session.createdAt),
        expires_at: iso(session.expiresAt),
        verified_at: isoOrNull(session.verifiedAt),
        ended_at: isoOrNull(session.endedAt),
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async findSessionByTokenHash(tokenHash: string): Promise<OperatorSessionRecord | undefined> {
    const row = await this.db.selectFrom('operator_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    return row && toSession(row);
  }

  async markSessionVerified(sessionId: string, at: Date): Promise<void> {
    await this.db.updateTable('operator_sessions').set({ verified_at: iso(at) }).where('session_id', '=', sessionId).execute();
  }

  async clearVerificationsOf(operatorId: string): Promise<void> {
    await this.db.updateTable('operator_sessions').set({ verified_at: null }).where('operator_id', '=', operatorId).execute();
  }

  async endSession(sessionId: string, at: Date): Promise<void> {
    await this.db.updateTable('operator_sessions').set({ ended_at: iso(at) }).where('session_id', '=', sessionId).where('ended_at', 'is', null).execute();
  }
}

class SqlSecurityEmailStore implements SecurityEmailStore {
  constructor(private readonly db: Db) {}

  async insertSecurityEmail(email: SecurityEmailRecord): Promise<InsertResult> {
    const result = await this.db
      .insertInto('security_emails')
      .values({
        email_id: email.emailId,
        account_id: email.accountId,
        to_address: email.to,
        subject: email.subject,
        body: email.body,
        created_at: iso(email.createdAt),
        next_attempt_at: iso(email.nextAttemptAt),
        attempts: email.attempts,
        sent_at: isoOrNull(email.sentAt),
        last_error: email.lastError,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return insertResult(result);
  }

  async listSecurityEmails(accountId: string, limit: number): Promise<SecurityEmailRecord[]> {
    const rows = await this.db
      .selectFrom('security_emails')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('email_id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toSecurityEmail);
  }

  async listDueSecurityEmails(now: Date, limit: number): Promise<SecurityEmailRecord[]> {
    const rows = await this.db
      .selectFrom('security_emails')
      .selectAll()
      .where('sent_at', 'is', null)
      .where('next_attempt_at', '<=', iso(now))
      .orderBy('next_attempt_at')
      .orderBy('email_id')
      .limit(limit)
      .execute();
    return rows.map(toSecurityEmail);
  }

  async claimSecurityEmail(emailId: string, expected: Date, until: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('security_emails')
      .set({ next_attempt_at: iso(until) })
      .where('email_id', '=', emailId)
      .where('sent_at', 'is', null)
      .where('next_attempt_at', '=', iso(expected))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async markSecurityEmailSent(emailId: string, at: Date): Promise<void> {
    await this.db
      .updateTable('security_emails')
      .set((eb) => ({ sent_at: iso(at), attempts: eb('attempts', '+', 1), last_error: null }))
      .where('email_id', '=', emailId)
      .execute();
  }

  async markSecurityEmailFailed(emailId: string, error: string, nextAttemptAt: Date): Promise<void> {
    await this.db
      .updateTable('security_emails')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: error.slice(0, 500), next_attempt_at: iso(nextAttemptAt) }))
      .where('email_id', '=', emailId)
      .where('sent_at', 'is', null)
      .execute();
  }
}

/** The operators stores on one connection or transaction. */
export function operatorsSqlStores(db: Db): OperatorsStores {
  return {
    operators: new SqlOperatorStore(db),
    operatorSessions: new SqlOperatorSessionStore(db),
    securityEmails: new SqlSecurityEmailStore(db),
    operatorInvitations: new SqlOperatorInvitationStore(db),
    twoFactorResets: new SqlTwoFactorResetStore(db),
  };
}
