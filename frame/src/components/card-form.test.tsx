import { render } from 'preact';
import { act } from 'preact/test-utils';
import { describe, expect, test } from 'vitest';
import { PaymentModel } from '../payment-model';
import { ALL_METHODS, fakeApi, json, modelDeps, renderTarget } from '../test-utils';
import { CARD_INPUT_IDS } from './card-form';
import { loadMessages } from '../i18n';
import { PaymentForm } from './payment-form';
import { detailRows, safeLink } from './next-action-screen';
import { MSISDN_INPUT_ID } from './text-field-form';

const scratch = renderTarget();

async function mounted(handlers: { submit?: () => void; escape?: () => void } = {}) {
  const { deps, events } = modelDeps(fakeApi({ methods: () => json(ALL_METHODS) }).fetch);
  const model = new PaymentModel(deps);
  await model.load();
  await act(() => render(<PaymentForm model={model} onEscape={handlers.escape ?? (() => {})} onSubmit={handlers.submit} />, scratch));
  const input = (field: keyof typeof CARD_INPUT_IDS) => scratch.querySelector<HTMLInputElement>(`#${CARD_INPUT_IDS[field]}`)!;
  return { model, input, events };
}

async function type(input: HTMLInputElement, value: string, caret = value.length) {
  input.focus();
  input.value = value;
  input.setSelectionRange(caret, caret);
  await act(() => {
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

describe('CardForm', () => {
  test('has labelled fields with autofill tokens, numeric input mode and described errors', async () => {
    const { input } = await mounted();
    const expected = [
      ['card_number', 'Card number', 'cc-number', 'numeric'],
      ['card_exp', 'Expiry date', 'cc-exp', 'numeric'],
      ['card_cvc', 'Security code', 'cc-csc', 'numeric'],
      ['card_holder_name', 'Name on card', 'cc-name', null],
    ] as const;
    for (const [field, label, autocomplete, inputMode] of expected) {
      const element = input(field);
      expect(scratch.querySelector(`label[for="${element.id}"]`)?.textContent).toBe(label);
      expect(element.getAttribute('autocomplete')).toBe(autocomplete);
      expect(element.getAttribute('inputmode')).toBe(inputMode);
      expect(element.getAttribute('aria-invalid')).toBe('false');
      expect(element.getAttribute('aria-describedby')).toContain(`${element.id}-error`);
      expect(scratch.querySelector(`#${element.id}-error`)?.getAttribute('aria-live')).toBe('polite');
    }
  });

  test('formats the number as typed, keeps the caret, shows the brand', async () => {
    const { input } = await mounted();
    const number = input('card_number');
    await type(number, '424242424242');
    expect(number.value).toBe('4242 4242 4242');
    expect(scratch.querySelector('#rail-card-brand')?.textContent).toBe('Visa');
    // An edit in the middle keeps the caret after the digit typed.
    await type(number, '42142 4242 4242', 3);
    expect(number.value).toBe('4214 2424 2424 2');
    expect(number.selectionStart).toBe(3);
  });

  test('marks an invalid number aria-invalid with a localized message, live in French', async () => {
    const { input, model } = await mounted();
    const number = input('card_number');
    await type(number, '4242424242424241');
    expect(number.getAttribute('aria-invalid')).toBe('true');
    expect(scratch.querySelector(`#${number.id}-error`)?.textContent).toBe('Your card number is invalid.');
    await act(async () => {
      model.update({ locale: 'fr' });
      await loadMessages('fr');
    });
    expect(scratch.querySelector(`#${number.id}-error`)?.textContent).toBe('Votre numéro de carte n’est pas valide.');
    expect(scratch.querySelector(`label[for="${number.id}"]`)?.textContent).toBe('Numéro de carte');
  });

  test('Enter in a field asks the host to submit; Escape reports escape', async () => {
    let submits = 0;
    let escapes = 0;
    const { input } = await mounted({ submit: () => (submits += 1), escape: () => (escapes += 1) });
    input('card_cvc').dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    input('card_cvc').dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect([submits, escapes]).toEqual([1, 1]);
  });

  test('the method selector is a labelled radio group; picking crypto shows its form', async () => {
    const { model } = await mounted();
    const radios = [...scratch.querySelectorAll<HTMLInputElement>('input[type="radio"][name="rail-method"]')];
    expect(radios.map((radio) => radio.value)).toEqual(['card', 'upi_collect', 'upi_qr', 'bank_transfer:local_bank_transfer', 'mobile_payment:momo', 'crypto']);
    expect(scratch.querySelector('fieldset legend')?.textContent).toBe('Payment method');
    await act(() => model.select('crypto'));
    expect(scratch.querySelector('label[for="rail-crypto-currency"]')?.textContent).toBe('Pay in');
    expect(scratch.querySelector('[data-testid="card-form"]')).toBeNull();
  });
});

describe('mobile money form', () => {
  test('one labelled phone input (tel, autocomplete tel) whose error shows after leaving it and clears when fixed', async () => {
    const { model } = await mounted();
    await act(() => model.select('mobile_payment:momo'));
    const field = scratch.querySelector<HTMLInputElement>(`#${MSISDN_INPUT_ID}`)!;
    expect(scratch.querySelector(`label[for="${MSISDN_INPUT_ID}"]`)?.textContent).toBe('Mobile money number');
    expect([field.type, field.getAttribute('autocomplete'), field.getAttribute('inputmode'), field.getAttribute('aria-required')]).toEqual(['tel', 'tel', 'tel', 'true']);
    expect(field.getAttribute('aria-describedby')).toBe(`${MSISDN_INPUT_ID}-hint ${MSISDN_INPUT_ID}-error`);
    await type(field, '0712');
    await act(() => {
      field.dispatchEvent(new Event('blur'));
    });
    expect([field.getAttribute('aria-invalid'), scratch.querySelector(`#${MSISDN_INPUT_ID}-error`)?.textContent]).toEqual(['true', 'Enter a phone number of 8 to 15 digits.']);
    await type(field, '0712 345 678');
    expect([field.getAttribute('aria-invalid'), scratch.querySelector(`#${MSISDN_INPUT_ID}-error`)?.textContent]).toEqual(['false', '']);
  });
});

describe('next-action helpers', () => {
  test('safeLink keeps http(s) and upi: only', () => {
    expect(safeLink('https://x.test/a')).toBe('https://x.test/a');
    expect(safeLink('upi://pay?pa=a@b')).toBe('upi://pay?pa=a@b');
    expect(safeLink('javascript:alert(1)')).toBeUndefined();
    expect(safeLink('data:text/html,x')).toBeUndefined();
  });

  test('detailRows flattens nested transfer details', () => {
    expect(detailRows({ pay_to: { bank_name: 'Rail Bank', account_number: '01' }, amount: 100, note: null })).toEqual([
      ['Pay to › Bank name', 'Rail Bank'],
      ['Pay to › Account number', '01'],
      ['Amount', '100'],
    ]);
  });
});
