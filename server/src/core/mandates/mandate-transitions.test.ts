import { describe, expect, test } from 'vitest';
import { MANDATE_STATUSES } from '../../../../protocol/api/mandates';
import { decideMandateTransition } from './mandate-transitions';

describe('mandate transitions', () => {
  test('a mandate is born active when its setup payment succeeds', () => {
    expect(decideMandateTransition(null, 'setup_payment_succeeded')).toEqual({ allowed: true, to: 'active' });
  });

  test('only an active mandate can be revoked; revoked is final', () => {
    for (const status of MANDATE_STATUSES) {
      const decision = decideMandateTransition(status, 'revoke');
      expect(decision).toEqual(status === 'active' ? { allowed: true, to: 'revoked' } : { allowed: false, reason: 'status' });
    }
  });
});
