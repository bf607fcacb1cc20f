import { displayAmount } from '../display-amount';
import type { Messages } from '../i18n';
import type { ScreenAction } from '../payment-model';

/** Links the frame renders: the server's http(s) pages, and upi: app links. Anything else (javascript:, data:) is dropped. */
export function safeLink(url: string | null | undefined, schemes = /^(https?:|upi:)/i): string | undefined {
  return url && schemes.test(url) ? url : undefined;
}

const words = (key: string) => key.replace(/_/g, ' ').replace(/^\w/, (letter) => letter.toUpperCase());

/** Flattens the bank-transfer details object into label/value rows (nested objects become "parent › child"). */
export function detailRows(details: Record<string, unknown>, prefix = ''): [string, string][] {
  const rows: [string, string][] = [];
  for (const [key, value] of Object.entries(details)) {
    const label = prefix ? `${prefix} › ${words(key)}` : words(key);
    if (value === null || value === undefined || value === '') continue;
    if (Array.isArray(value)) value.forEach((item, index) => rows.push(...(item && typeof item === 'object' ? detailRows(item as Record<string, unknown>, `${label} ${index + 1}`) : [[`${label} ${index + 1}`, String(item)] as [string, string]])));
    else if (typeof value === 'object') rows.push(...detailRows(value as Record<string, unknown>, label));
    else rows.push([label, String(value)]);
  }
  return rows;
}

function Details({ rows }: { rows: [string, string][] }) {
  return (
    <dl class="Details">
      {rows.map(([label, value]) => (
        <div class="Details-row" key={label}>
          <dt>{label}</dt>
          <dd>
            <code>{value}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** What the frame shows for a next_action it handles itself, while it polls the payment. */
export function NextActionScreen({ action, messages, locale }: { action: ScreenAction; messages: Messages; locale: string }) {
  switch (action.type) {
    case 'qr_code_information': {
      const image = action.image_data_url && /^data:image\/(png|gif|jpeg|svg\+xml);/i.test(action.image_data_url) ? action.image_data_url : undefined;
      const link = safeLink(action.qr_code_url);
      return (
        <div class="Action" data-testid="qr-screen">
          <p class="Hint">{messages.qrScan}</p>
          {image && <img class="Qr" src={image} alt={messages.qrAlt} width={200} height={200} />}
          {link && (
            <a class="Button" href={link} target="_blank" rel="noopener noreferrer">
              {messages.qrLink}
            </a>
          )}
        </div>
      );
    }
    case 'display_bank_transfer_information': {
      // The rail's own fields, as they come, except the amount (formatted here) and the test simulator's link.
      const { type, simulator_url: simulatorUrl, ...details } = action.bank_transfer_steps_and_charges_details;
      const { amount, currency, ...rest } = details;
      const rows =
        typeof amount === 'number' && typeof currency === 'string'
          ? [[messages.amount, displayAmount(amount, currency, locale)] as [string, string], ...detailRows(rest)]
          : detailRows(details);
      const link = typeof simulatorUrl === 'string' ? safeLink(simulatorUrl, /^https?:/i) : undefined;
      return (
        <div class="Action" data-testid="bank-transfer-screen">
          <p class="Hint">{type === 'mobile_money' ? messages.mobileMoneyTitle : messages.bankTransferTitle}</p>
          <Details rows={rows} />
          {link && (
            <a class="Button" href={link} target="_blank" rel="noopener noreferrer">
              {messages.simulatorOpen}
            </a>
          )}
        </div>
      );
    }
    case 'crypto_payment_information': {
      const link = safeLink(action.hosted_page_url, /^https?:/i);
      return (
        <div class="Action" data-testid="crypto-screen">
          <p class="Hint">{messages.cryptoTitle}</p>
          <Details
            rows={[
              [messages.cryptoAmount, `${action.pay_amount} ${action.pay_currency}`],
              [messages.cryptoAddress, action.wallet_address],
              [messages.cryptoNetwork, action.network],
            ]}
          />
          {link && (
            <a class="Button" href={link} target="_blank" rel="noopener noreferrer">
              {messages.cryptoOpen}
            </a>
          )}
        </div>
      );
    }
    case 'redirect_to_url': {
      // Only app links reach here (http(s) redirects are the host's); a UPI intent opens the customer's UPI app.
      const link = safeLink(action.redirect_to_url, /^upi:/i);
      return (
        <div class="Action" data-testid="intent-screen">
          {link && (
            <a class="Button" href={link}>
              {messages.upiIntentOpen}
            </a>
          )}
        </div>
      );
    }
  }
}
