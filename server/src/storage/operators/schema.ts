export interface OperatorsTable {
  operator_id: string;
  account_id: string;
  email: string;
  password_hash: string;
  totp_secret: string;
  /** JSON array of scopes. */
  scopes: string;
  totp_last_step: number | null;
  created_at: string;
}

export interface OperatorSessionsTable {
  session_id: string;
  account_id: string;
  operator_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  verified_at: string | null;
  ended_at: string | null;
}

export interface SecurityEmailsTable {
  email_id: string;
  account_id: string;
  to_address: string;
  subject: string;
  body: string;
  created_at: string;
  next_attempt_at: string;
  attempts: number;
  sent_at: string | null;
  last_error: string | null;
}

export interface OperatorInvitationsTable {
  invitation_id: string;
  account_id: string;
  email: string;
  scopes: string;
  token_hash: string;
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

export interface TwoFactorResetsTable {
  reset_id: string;
  account_id: string;
  operator_id: string;
  requested_by: string;
  created_at: string;
  expires_at: string;
  approved_by: string | null;
  approved_at: string | null;
}

/** The operators tables, as storage/schema.ts composes them into the database. */
export interface OperatorsSchema {
  operators: OperatorsTable;
  operator_sessions: OperatorSessionsTable;
  security_emails: SecurityEmailsTable;
  operator_invitations: OperatorInvitationsTable;
  two_factor_resets: TwoFactorResetsTable;
}
