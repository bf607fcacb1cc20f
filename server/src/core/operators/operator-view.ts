import type { OperatorEntry, TwoFactorReset } from '../../../../protocol/api/keys';
import type { OperatorRecord, TwoFactorResetRecord } from '../../storage/operators/records';

/** An operator as the API shows them: never a password hash or a TOTP secret. */
export function toOperatorEntry(operator: OperatorRecord): OperatorEntry {
  return {
    operator_id: operator.operatorId,
    email: operator.email,
    scopes: [...operator.scopes],
    two_factor: operator.totpSecret === '' ? 'not_enrolled' : 'enrolled',
    created: operator.createdAt.toISOString(),
  };
}

export function toTwoFactorReset(reset: TwoFactorResetRecord): TwoFactorReset {
  return {
    reset_id: reset.resetId,
    operator_id: reset.operatorId,
    requested_by: reset.requestedBy,
    status: reset.approvedAt === null ? 'pending' : 'approved',
    expires_at: reset.expiresAt.toISOString(),
    approved_by: reset.approvedBy,
  };
}
