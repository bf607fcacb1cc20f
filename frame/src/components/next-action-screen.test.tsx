import { render } from 'preact';
import { describe, expect, test } from 'vitest';
import { DEFAULT_MESSAGES, loadMessages } from '../i18n';
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
    render(<NextActionScreen action={bankTransfer(details)} messages={DEFAULT_MESSAGES} locale="en" />, scratch);
    expect(rows()).toEqual([
      ['Amount due', 'KES 1,500.00'],
      ['Receiver › Bank name', 'Rail Bank'],
      ['Reference', 'RAIL1234'],
    ]);
    expect(scratch.textContent).toContain(DEFAULT_MESSAGES.bankTransferTitle);
    expect(scratch.querySelector('a')).toBeNull();
  });

  test('keeps amount and currency as rows when they cannot be formatted together', () => {
    render(<NextActionScreen action={bankTransfer({ amount: '1500', currency: 'KES' })} messages={DEFAULT_MESSAGES} locale="en" />, scratch);
    expect(rows()).toEqual([
      ['Amount', '1500'],
      ['Currency', 'KES'],
    ]);
  });

  test('mobile money gets its own title; the test simulator link opens in a new tab, and only over http(s)', async () => {
    const french = await loadMessages('fr');
    const details = { type: 'mobile_money', amount: 5_000, currency: 'UGX', simulator_url: 'https://api.rail.test/simulator/bank_transfer/pay_1?challenge=x' };
    render(<NextActionScreen action={bankTransfer(details)} messages={french} locale="fr" />, scratch);
    expect(scratch.textContent).toContain(french.mobileMoneyTitle);
    const link = scratch.querySelector('a')!;
    expect([link.textContent, link.getAttribute('href'), link.getAttribute('target'), link.getAttribute('rel')]).toEqual([
      french.simulatorOpen,
      details.simulator_url,
      '_blank',
      'noopener noreferrer',
    ]);
    expect(rows().map(([label]) => label)).toEqual([french.amount]);
    render(<NextActionScreen action={bankTransfer({ simulator_url: 'javascript:alert(1)' })} messages={DEFAULT_MESSAGES} locale="en" />, scratch);
    expect(scratch.querySelector('a')).toBeNull();
  });
});

describe('NextActionScreen: UPI QR', () => {
  const PAGE = 'https://api.rail.test/simulator/upi/pay_1?account=acct_1&challenge=c';
  const SVG = `data:image/svg+xml;base64,${btoa('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>')}`;
  const qr = (image: string | null): ScreenAction => ({ type: 'qr_code_information', qr_code_url: PAGE, image_data_url: image, display_to_timestamp: null });

  test('shows the SVG QR image at 200 px with its alt text, and the link to qr_code_url under it', () => {
    const messages = DEFAULT_MESSAGES;
    render(<NextActionScreen action={qr(SVG)} messages={messages} locale="en" />, scratch);
    const screen = scratch.querySelector('[data-testid="qr-screen"]')!;
    const img = screen.querySelector('img')!;
    expect([img.getAttribute('src'), img.getAttribute('alt'), img.getAttribute('width'), img.getAttribute('height')]).toEqual([SVG, messages.qrAlt, '200', '200']);
    expect(messages.qrAlt).toMatch(/QR code/);
    const link = screen.querySelector('a')!;
    expect([link.textContent, link.getAttribute('href')]).toEqual([messages.qrLink, PAGE]);
    expect([...screen.children].map((child) => child.tagName)).toEqual(['P', 'IMG', 'A']);
  });

  test('shows no image for anything but a data:image URL, and only the link', () => {
    for (const image of [null, '', 'https://evil.example/qr.svg', 'javascript:alert(1)', 'data:text/html;base64,PHNjcmlwdD4=']) {
      render(<NextActionScreen action={qr(image)} messages={DEFAULT_MESSAGES} locale="en" />, scratch);
      expect(scratch.querySelector('img'), String(image)).toBeNull();
      expect(scratch.querySelector('a')?.getAttribute('href')).toBe(PAGE);
    }
  });
});
