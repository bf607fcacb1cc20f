// Its own file: whether the document has formatted an amount yet is module state, fresh in each test file.
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { describe, expect, test, vi } from 'vitest';
import { PaymentModel } from '../payment-model';
import { fakeApi, modelDeps, renderTarget } from '../test-utils';
import { PaymentForm } from './payment-form';

const scratch = renderTarget();

async function loadedModel() {
  const model = new PaymentModel(modelDeps(fakeApi().fetch).deps);
  await model.load();
  return model;
}

const amountText = () => scratch.querySelector('.Amount-value')?.textContent;

describe('the amount line of the first render', () => {
  test('renders the form at once and formats the amount after it, once; later renders format at once', async () => {
    const RealNumberFormat = Intl.NumberFormat;
    let formatters = 0;
    Intl.NumberFormat = new Proxy(RealNumberFormat, { construct: (target, args) => (formatters++, new target(...(args as []))) });
    render(<PaymentForm model={await loadedModel()} onEscape={() => {}} />, scratch);
    // The form takes input before any Intl formatter has been made (the first loads ICU's data).
    expect(scratch.querySelector('label')?.textContent).toBe('UPI ID');
    expect(amountText()).toBe('');
    expect(formatters).toBe(0);
    await vi.waitFor(() => expect(amountText()).toBe('₹100.50'));

    const again = await loadedModel();
    act(() => render(null, scratch));
    render(<PaymentForm model={again} onEscape={() => {}} />, scratch);
    expect(amountText()).toBe('₹100.50');
    Intl.NumberFormat = RealNumberFormat;
  });
});
