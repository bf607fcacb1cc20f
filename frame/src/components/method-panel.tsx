import type { Messages } from '../i18n';
import { CRYPTO_CURRENCIES, type Payment, type WalletOutcome } from '../payment-model';
import { CardForm } from './card-form';
import { TextFieldForm } from './text-field-form';

export const CRYPTO_SELECT_ID = 'rail-crypto-currency';
export const WALLET_OUTCOME_ID = 'rail-wallet-outcome';

/** The inputs (or the explanation) of the selected method. */
export function MethodPanel({ model, messages, disabled }: { model: Payment; messages: Messages; disabled: boolean }) {
  const option = model.selected.value;
  if (!option) return null;
  switch (option.id.split(':')[0]) {
    case 'saved':
      return (
        <p class="Hint Panel" data-testid="saved-method">
          {messages.savedHint} {option.detail}
        </p>
      );
    case 'card':
      return <CardForm card={model.card} messages={messages} disabled={disabled} />;
    case 'upi_collect':
      return <TextFieldForm field="vpa" form={model.upi} messages={messages} disabled={disabled} />;
    case 'upi_intent':
      return <p class="Hint Panel">{messages.upiIntentHint}</p>;
    case 'upi_qr':
      return <p class="Hint Panel">{messages.upiQrHint}</p>;
    case 'bank_transfer':
      return <p class="Hint Panel">{messages.bankTransferHint}</p>;
    case 'mobile_payment':
      return <TextFieldForm field="msisdn" form={model.mobileMoney} messages={messages} disabled={disabled} />;
    case 'wallet':
      return (
        <div class="Form" data-testid="test-wallet">
          <label class="Label" for={WALLET_OUTCOME_ID}>
            {messages.walletOutcomeLabel}
          </label>
          <select
            id={WALLET_OUTCOME_ID}
            class="Input"
            disabled={disabled}
            value={model.walletOutcome.value}
            onChange={(event) => (model.walletOutcome.value = event.currentTarget.value as WalletOutcome)}
          >
            <option value="approved">{messages.walletApproved}</option>
            <option value="declined">{messages.walletDeclined}</option>
          </select>
          <p class="Hint">{messages.walletHint}</p>
        </div>
      );
    case 'crypto':
      return (
        <div class="Form">
          <label class="Label" for={CRYPTO_SELECT_ID}>
            {messages.cryptoCurrencyLabel}
          </label>
          <select
            id={CRYPTO_SELECT_ID}
            class="Input"
            disabled={disabled}
            value={model.cryptoCurrency.value}
            onChange={(event) => (model.cryptoCurrency.value = event.currentTarget.value)}
          >
            {CRYPTO_CURRENCIES.map((code) => (
              <option value={code} key={code}>
                {code}
              </option>
            ))}
          </select>
          <p class="Hint">{messages.cryptoHint}</p>
        </div>
      );
    default:
      return null;
  }
}

/** The method selector: a radio group styled as tabs (arrow keys move between methods, Tab leaves the group). */
export function MethodTabs({ model, messages, disabled }: { model: Payment; messages: Messages; disabled: boolean }) {
  const methods = model.methods.value;
  if (methods.length < 2) return null;
  return (
    <fieldset class="Tabs" data-testid="method-tabs">
      <legend class="VisuallyHidden">{messages.methodLegend}</legend>
      {methods.map((option) => {
        const checked = option.id === model.selectedId.value;
        return (
          <label class={checked ? 'Tab Tab--selected' : 'Tab'} key={option.id}>
            <input
              class="Tab-input"
              type="radio"
              name="rail-method"
              value={option.id}
              checked={checked}
              disabled={disabled}
              onChange={() => model.select(option.id)}
            />
            <span>{option.detail ? `${messages[option.label]} ${option.detail}` : messages[option.label]}</span>
          </label>
        );
      })}
    </fieldset>
  );
}
