import { render } from 'preact';
import { describe, expect, test } from 'vitest';
import { messagesFor } from '../i18n';
import type { ScreenAction } from '../payment-model';
import { renderTarget } from '../test-utils';
import { NextActionScreen } from './next-action-screen';

const scratch = renderTarget();

const bankTransfer = (details: Record<string, unknown>): ScreenAction => ({ type: 'display_bank_transfer_information', bank_transfer_steps_and_charges_details: details });

function rows(): [string, string][] {
  return [...scratch.querySelectorAll('.Details-row')].map((row) => [row.querySelector('dt')!.textContent!, row.querySelector('dd')!.textContent!.replace(/\s/g, ' ')]);
}

describe('NextActionScreen: bank transfer / mobile money instructions', () => {
  test('formats the amount in the currency exponent and locale, and shows the rail fields but not its type', () => {
    const details = { type: 'local_bank_transfer', receiver: { bank_name: 'Rail Bank' }, reference: 'RAIL1234', amount: 150_000, currency: 'KES' };
    render(<NextActionScreen action={bankTransfer(details)} messages={messagesFor('en')} locale="en" />, scratch);
    expect(rows()).toEqual([
      ['Amount due', 'KES 1,500.00'],
      ['Receiver › Bank name', 'Rail Bank'],
      ['Reference', 'RAIL1234'],
    ]);
    expect(scratch.textContent).toContain(messagesFor('en').bankTransferTitle);
    expect(scratch.querySelector('a')).toBeNull();
  });

  test('keeps amount and currency as rows when they cannot be formatted together', () => {
    render(<NextActionScreen action={bankTransfer({ amount: '1500', currency: 'KES' })} messages={messagesFor('en')} locale="en" />, scratch);
    expect(rows()).toEqual([
      ['Amount', '1500'],
      ['Currency', 'KES'],
    ]);
  });

  test('mobile money gets its own title; the test simulator link opens in a new tab, and only over http(s)', () => {
    const details = { type: 'mobile_money', amount: 5_000, currency: 'UGX', simulator_url: 'https://api.rail.test/simulator/bank_transfer/pay_1?challenge=x' };
    render(<NextActionScreen action={bankTransfer(details)} messages={messagesFor('fr')} locale="fr" />, scratch);
    expect(scratch.textContent).toContain(messagesFor('fr').mobileMoneyTitle);
    const link = scratch.querySelector('a')!;
    expect([link.textContent, link.getAttribute('href'), link.getAttribute('target'), link.getAttribute('rel')]).toEqual([
      messagesFor('fr').simulatorOpen,
      details.simulator_url,
      '_blank',
      'noopener noreferrer',
    ]);
    expect(rows().map(([label]) => label)).toEqual([messagesFor('fr').amount]);
    render(<NextActionScreen action={bankTransfer({ simulator_url: 'javascript:alert(1)' })} messages={messagesFor('en')} locale="en" />, scratch);
    expect(scratch.querySelector('a')).toBeNull();
  });
});
