import { render } from 'preact';
import { act } from 'preact/test-utils';
import { describe, expect, test } from 'vitest';
import { PaymentModel } from '../payment-model';
import { PAYMENT, backgroundRequestsAnswered, fakeApi, json, modelDeps, renderTarget } from '../test-utils';
import { WALLET_OUTCOME_ID } from './method-panel';
import { loadMessages } from '../i18n';
import { NOTICE_ID, PaymentForm } from './payment-form';
import { VPA_INPUT_ID } from './text-field-form';

const scratch = renderTarget();

async function mounted(escape: () => void = () => {}) {
  const { deps } = modelDeps(fakeApi().fetch);
  const model = new PaymentModel(deps);
  await model.load();
  await act(() => render(<PaymentForm model={model} onEscape={escape} />, scratch));
  const input = scratch.querySelector<HTMLInputElement>(`#${VPA_INPUT_ID}`)!;
  return { model, input };
}

function type(input: HTMLInputElement, value: string) {
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

describe('PaymentForm', () => {
  test('labels the input "UPI ID" and describes it with its hint and error', async () => {
    const { input } = await mounted();
    const label = scratch.querySelector(`label[for="${VPA_INPUT_ID}"]`);
    expect(label?.textContent).toBe('UPI ID');
    expect(input.getAttribute('aria-describedby')).toBe(`${VPA_INPUT_ID}-hint ${VPA_INPUT_ID}-error`);
    expect(input.getAttribute('aria-invalid')).toBe('false');
    expect(input.getAttribute('autocomplete')).toBe('off');
  });

  test('shows the amount with the currency exponent', async () => {
    await mounted();
    expect(scratch.querySelector('.Amount-value')?.textContent).toBe('₹100.50');
  });

  test('still renders when the currency code is unusable', async () => {
    const { deps } = modelDeps(fakeApi({ retrieve: () => json({ ...PAYMENT, currency: 'no!' }) }).fetch);
    const model = new PaymentModel(deps);
    await model.load();
    await act(() => render(<PaymentForm model={model} onEscape={() => {}} />, scratch));
    expect(scratch.querySelector('.Amount-value')?.textContent).toBe('10050 no!');
    expect(scratch.querySelector('label')?.textContent).toBe('UPI ID');
  });

  test('marks the input invalid and announces the error politely after blur', async () => {
    const { input } = await mounted();
    await act(() => type(input, 'bad'));
    await act(() => {
      input.dispatchEvent(new Event('blur'));
    });
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(input.classList.contains('Input--invalid')).toBe(true);
    const error = scratch.querySelector(`#${VPA_INPUT_ID}-error`)!;
    expect(error.getAttribute('aria-live')).toBe('polite');
    expect(error.textContent).toBe('Enter a UPI ID like name@bank.');
  });

  test('has one polite status region that reports progress', async () => {
    const { model, input } = await mounted();
    const notice = scratch.querySelector(`#${NOTICE_ID}`)!;
    expect([notice.getAttribute('role'), notice.getAttribute('aria-live'), notice.textContent]).toEqual(['status', 'polite', '']);
    await act(() => type(input, 'success@upi'));
    await act(async () => {
      await model.confirm({ redirect: 'if_required' });
    });
    expect(notice.textContent).toBe('Payment succeeded.');
    expect(input.disabled).toBe(true);
  });

  test('switches language live', async () => {
    const { model } = await mounted();
    await act(async () => {
      model.update({ locale: 'fr' });
      await loadMessages('fr');
    });
    expect(scratch.querySelector('label')?.textContent).toBe('Identifiant UPI');
    expect(scratch.querySelector('.Root')?.getAttribute('lang')).toBe('fr');
    expect(scratch.querySelector('.Amount-value')?.textContent?.replace(/\s/g, ' ')).toBe('100,50 ₹');
  });

  test('reports Escape from the input', async () => {
    let escaped = 0;
    const { input } = await mounted(() => (escaped += 1));
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect(escaped).toBe(1);
  });
});

describe('PaymentForm: a test wallet', () => {
  test('shows a labelled answer select and a hint; the select sets what the simulated wallet answers', async () => {
    const api = fakeApi({
      methods: () => json({ payment_methods: [{ payment_method: 'card' }, { payment_method: 'wallet', payment_method_types: [{ payment_method_type: 'google_pay' }] }] }),
      sessionTokens: () => json({ session_token: [{ wallet_name: 'google_pay', connector: 'card_simulator' }] }),
    });
    const model = new PaymentModel(modelDeps(api.fetch).deps);
    await model.load();
    await act(() => render(<PaymentForm model={model} onEscape={() => {}} />, scratch));
    // The wallet tabs join after ready, when their session tokens arrive.
    await act(backgroundRequestsAnswered);
    const tab = [...scratch.querySelectorAll('label.Tab')].find((label) => label.textContent === 'Google Pay (test)');
    expect(tab).toBeDefined();
    await act(() => model.select('wallet:google_pay'));
    const select = scratch.querySelector<HTMLSelectElement>(`#${WALLET_OUTCOME_ID}`)!;
    expect(scratch.querySelector(`label[for="${WALLET_OUTCOME_ID}"]`)?.textContent).toBe('Wallet answer');
    expect(scratch.querySelector('[data-testid="test-wallet"] .Hint')?.textContent).toContain('Test mode');
    await act(() => {
      select.value = 'declined';
      select.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(model.walletOutcome.value).toBe('declined');
  });
});
