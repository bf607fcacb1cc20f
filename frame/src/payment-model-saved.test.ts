import { describe, expect, test } from 'vitest';
import { PaymentModel, savedOptions } from './payment-model';
import { PAYMENT, fakeApi, json, modelDeps } from './test-utils';

const SAVED = {
  is_guest_customer: false,
  customer_payment_methods: [
    { payment_token: 'pm_card', payment_method: 'card', payment_method_type: 'credit', recurring_enabled: true, card: { last4_digits: '4242' } },
    { payment_token: 'pm_upi', payment_method: 'upi', payment_method_type: 'upi_collect', recurring_enabled: true, card: null },
    { payment_token: 'pm_record', payment_method: 'card', payment_method_type: 'credit', recurring_enabled: false, card: { last4_digits: null } },
  ],
};

/** A fake API whose payment belongs to a customer with saved methods. */
function customerApi(customerId: string | null = 'cus_1') {
  return fakeApi({
    retrieve: ({ url }) => (url.includes('/customers/payment_methods') ? json(SAVED) : json({ ...PAYMENT, customer_id: customerId })),
  });
}

describe('saved methods', () => {
  test('savedOptions() offers the chargeable methods only, with what the tab shows', () => {
    expect(savedOptions(SAVED)).toEqual([
      { id: 'saved:pm_card', payment_method: 'card', payment_method_type: 'credit', label: 'tabSaved', detail: '•••• 4242', paymentToken: 'pm_card' },
      { id: 'saved:pm_upi', payment_method: 'upi', payment_method_type: 'upi_collect', label: 'tabSaved', detail: 'UPI COLLECT', paymentToken: 'pm_upi' },
    ]);
  });

  test("a customer's payment lists the saved methods first and confirms the chosen one with its payment_token", async () => {
    const api = customerApi();
    const harness = modelDeps(api.fetch);
    const model = new PaymentModel(harness.deps);
    await model.load();
    expect(model.methods.value.map((option) => option.id)).toEqual(['saved:pm_card', 'saved:pm_upi', 'upi_collect']);
    expect(model.selectedId.value).toBe('saved:pm_card');
    model.select('saved:pm_upi');
    const outcome = await model.confirm({ redirect: 'if_required' });
    expect(outcome).toMatchObject({ payment: { status: 'succeeded' } });
    const confirm = api.requests.find((request) => request.url.endsWith('/confirm'));
    expect(confirm?.body).toEqual({ client_secret: harness.deps.config.clientSecret, payment_token: 'pm_upi' });
    expect(api.requests.some((request) => request.url.endsWith('/vault/tokens'))).toBe(false);
  });

  test('a guest payment does not ask for saved methods, and a failing list leaves the other methods', async () => {
    const guest = customerApi(null);
    const model = new PaymentModel(modelDeps(guest.fetch).deps);
    await model.load();
    expect(guest.requests.some((request) => request.url.includes('/customers/payment_methods'))).toBe(false);
    expect(model.methods.value.map((option) => option.id)).toEqual(['upi_collect']);

    const failing = fakeApi({
      retrieve: ({ url }) => (url.includes('/customers/payment_methods') ? json({ error: { type: 'invalid_request', code: 'ERR_4006', message: 'x' } }, 404) : json({ ...PAYMENT, customer_id: 'cus_gone' })),
    });
    const other = new PaymentModel(modelDeps(failing.fetch).deps);
    await other.load();
    expect(other.phase.value).toBe('ready');
    expect(other.methods.value.map((option) => option.id)).toEqual(['upi_collect']);
  });
});
