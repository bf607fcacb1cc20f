import { describe, expect, test } from 'vitest';
import type { SubscriptionStatus } from '../../storage/subscriptions/records';
import { decideSubscriptionTransition, subscriptionEventFor } from './subscription-transitions';

const STATUSES: SubscriptionStatus[] = ['created', 'pending', 'active', 'paused', 'unpaid', 'cancelled'];

describe('subscription transitions', () => {
  test('confirm claims a created subscription (pending); the first invoice decides: paid -> active, declined -> created again', () => {
    expect(decideSubscriptionTransition('created', 'confirm')).toEqual({ allowed: true, to: 'pending' });
    for (const status of STATUSES.filter((s) => s !== 'created')) expect(decideSubscriptionTransition(status, 'confirm', { claim: 'live' }).allowed).toBe(false);
    // Only a claim whose lease ran out is taken over.
    for (const status of STATUSES) expect(decideSubscriptionTransition(status, 'confirm', { claim: 'abandoned' }).allowed).toBe(status === 'created' || status === 'pending');
    expect(decideSubscriptionTransition('pending', 'confirm', { claim: 'abandoned' })).toEqual({ allowed: true, to: 'pending' });
    expect(decideSubscriptionTransition('pending', 'payment_result', { payment: 'paid' })).toEqual({ allowed: true, to: 'active' });
    expect(decideSubscriptionTransition('pending', 'payment_result', { payment: 'failed' })).toEqual({ allowed: true, to: 'created' });
    // The claim and a declined first invoice announce nothing; subscription_created is the creation's alone.
    expect(subscriptionEventFor('confirm', 'pending')).toBeUndefined();
    expect(subscriptionEventFor('payment_result', 'created')).toBeUndefined();
    expect(subscriptionEventFor('create', 'created')).toBe('subscription_created');
  });

  test('a pending subscription is cancelled only once its claim was abandoned; every other status but cancelled always', () => {
    expect(decideSubscriptionTransition('pending', 'cancel', { claim: 'live' }).allowed).toBe(false);
    expect(decideSubscriptionTransition('pending', 'cancel', { claim: 'abandoned' })).toEqual({ allowed: true, to: 'cancelled' });
    for (const status of STATUSES.filter((s) => s !== 'pending')) expect(decideSubscriptionTransition(status, 'cancel').allowed).toBe(status !== 'cancelled');
  });

  test('cancelled is final: no trigger leaves it (a renewal charged before the cancel settles into it)', () => {
    for (const trigger of ['confirm', 'payment_result', 'pause', 'resume', 'cancel', 'update'] as const) {
      expect(decideSubscriptionTransition('cancelled', trigger, { payment: 'paid' }).allowed).toBe(false);
    }
    for (const payment of ['paid', 'failed'] as const) expect(decideSubscriptionTransition('cancelled', 'renewal', { payment })).toEqual({ allowed: true, to: 'cancelled' });
  });

  test('only an active subscription renews or pauses; a renewal settles on a paused or cancelled one too, which keep their status; paused and unpaid resume', () => {
    for (const status of STATUSES) {
      expect(decideSubscriptionTransition(status, 'renewal', { payment: 'paid' }).allowed).toBe(status === 'active' || status === 'paused' || status === 'cancelled');
      expect(decideSubscriptionTransition(status, 'pause').allowed).toBe(status === 'active');
      expect(decideSubscriptionTransition(status, 'resume').allowed).toBe(status === 'paused' || status === 'unpaid');
    }
    expect(decideSubscriptionTransition('active', 'renewal', { payment: 'failed' })).toEqual({ allowed: true, to: 'unpaid' });
    expect(decideSubscriptionTransition('paused', 'renewal', { payment: 'failed' })).toEqual({ allowed: true, to: 'paused' });
    expect(decideSubscriptionTransition('active', 'renewal', { payment: 'waiting' }).allowed).toBe(false);
  });

  test('events: invoice_paid for a paid renewal, subscription_unpaid for a refused one, invoice_payment_failed for one refused after a pause or cancel', () => {
    expect(subscriptionEventFor('renewal', 'active', { payment: 'paid' })).toBe('invoice_paid');
    expect(subscriptionEventFor('renewal', 'paused', { payment: 'paid' })).toBe('invoice_paid');
    expect(subscriptionEventFor('renewal', 'unpaid', { payment: 'failed' })).toBe('subscription_unpaid');
    expect(subscriptionEventFor('renewal', 'paused', { payment: 'failed' })).toBe('invoice_payment_failed');
    expect(subscriptionEventFor('renewal', 'cancelled', { payment: 'failed' })).toBe('invoice_payment_failed');
    expect(subscriptionEventFor('resume', 'active')).toBe('subscription_active');
    expect(subscriptionEventFor('update', 'paused')).toBe('subscription_updated');
  });
});
