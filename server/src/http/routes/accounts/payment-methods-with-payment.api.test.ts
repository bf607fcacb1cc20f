import { afterAll, beforeAll, expect, test } from 'vitest';
import { apiRequest, expectApiErrorResponse, expectOk } from '../../../test-support/api-assertions';
import { forEachEngine } from '../../../test-support/engines';
import { createHarness, type Harness } from '../../../test-support/harness';

type Json = Record<string, unknown>;

/** GET /account/payment_methods?client_secret=...&expand_payment=true: the payment element's one load request (issue 17 §4). */
forEachEngine('payment methods with their payment', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(engine);
  });
  afterAll(async () => {
    await h?.close();
  });

  const createPayment = async () => expectOk<{ payment_id: string; client_secret: string }>(await apiRequest(h, 'POST', '/payments', { body: { amount: 10_000, currency: 'INR' } }));
  const asBrowser = (path: string) => apiRequest(h, 'GET', path, { key: h.publishableKey });

  test('answers the list as without the flag, plus the payment as GET /payments/{id} answers it', async () => {
    const { payment_id, client_secret } = await createPayment();
    const expanded = await expectOk<Json>(await asBrowser(`/account/payment_methods?client_secret=${client_secret}&expand_payment=true`));
    const list = await expectOk<Json>(await asBrowser(`/account/payment_methods?client_secret=${client_secret}`));
    const payment = await expectOk<Json>(await asBrowser(`/payments/${payment_id}?client_secret=${client_secret}`));
    const { payment: expandedPayment, ...expandedList } = expanded;
    expect(expandedList).toEqual(list);
    expect(expandedPayment).toEqual(payment);
    expect((expandedPayment as Json)['amount']).toBe(10_000);
    expect(list).not.toHaveProperty('payment');
    expect(await expectOk<Json>(await asBrowser(`/account/payment_methods?client_secret=${client_secret}&expand_payment=false`))).toEqual(list);
  });

  test('the expanded payment is synced with its rail like a retrieve: a waiting UPI collect resolves', async () => {
    const { payment_id, client_secret } = await createPayment();
    await expectOk(
      await apiRequest(h, 'POST', `/payments/${payment_id}/confirm`, {
        body: { payment_method: 'upi', payment_method_type: 'upi_collect', payment_method_data: { upi: { upi_collect: { vpa_id: 'pending@upi' } } } },
      }),
    );
    const before = await expectOk<{ payment: { status: string } }>(await asBrowser(`/account/payment_methods?client_secret=${client_secret}&expand_payment=true`));
    expect(before.payment.status).toBe('requires_customer_action');
    h.clock.advance(11_000);
    const after = await expectOk<{ payment: { status: string } }>(await asBrowser(`/account/payment_methods?client_secret=${client_secret}&expand_payment=true`));
    expect(after.payment.status).toBe('succeeded');
  });

  test('refusals: no client_secret (ERR_2001), a client_secret of no payment (ERR_1005, as without the flag), a flag that is not a boolean (ERR_2003)', async () => {
    await expectApiErrorResponse(await apiRequest(h, 'GET', '/account/payment_methods?expand_payment=true'), 'ERR_2001', 'client_secret');
    const unknown = 'pay_AAAAAAAAAAAAAAAAAAAA_secret_BBBBBBBBBBBBBBBBBBBB';
    await expectApiErrorResponse(await asBrowser(`/account/payment_methods?client_secret=${unknown}&expand_payment=true`), 'ERR_1005', 'client_secret');
    await expectApiErrorResponse(await asBrowser(`/account/payment_methods?client_secret=${unknown}`), 'ERR_1005', 'client_secret');
    const { client_secret } = await createPayment();
    await expectApiErrorResponse(await asBrowser(`/account/payment_methods?client_secret=${client_secret}&expand_payment=yes`), 'ERR_2003', 'expand_payment');
  });
});
