import { formatAmount } from '../../../protocol/currency';
import type { Payment } from '../payment-model';
import { UpiCollectForm } from './upi-collect-form';

export const NOTICE_ID = 'rail-notice';

/** The amount in the currency's own exponent; an unknown currency code still shows digits rather than breaking the form. */
function displayAmount(value: number, currency: string, locale: string): string {
  try {
    return formatAmount(value, currency, locale);
  } catch {
    return `${value} ${currency}`;
  }
}

/** The element's whole UI: amount, the method form, and one polite live region for progress and failures. */
export function PaymentForm({ model, onEscape }: { model: Payment; onEscape(): void }) {
  const messages = model.messages.value;
  const amount = model.amount.value;
  const phase = model.phase.value;
  const notice = model.notice.value;
  const busy = phase === 'processing' || phase === 'waiting';
  return (
    <div class="Root" lang={model.locale.value} aria-busy={phase === 'loading' || busy}>
      {amount && (
        <p class="Amount">
          <span class="Amount-label">{messages.amount}</span>{' '}
          <span class="Amount-value">{displayAmount(amount.value, amount.currency, model.locale.value)}</span>
        </p>
      )}
      {phase === 'loading' && <p class="Loading">{messages.loading}</p>}
      {phase !== 'loading' && phase !== 'loaderror' && model.methodAvailable.value && (
        <UpiCollectForm form={model.upi} messages={messages} disabled={busy || phase === 'done'} onEscape={onEscape} />
      )}
      {phase === 'waiting' && <div class="Wait" aria-hidden="true"><span class="Spinner" /></div>}
      <p id={NOTICE_ID} class={notice ? `Notice Notice--${notice.kind}` : 'Notice'} role="status" aria-live="polite">
        {notice && messages[notice.key]}
        {notice?.detail && ` ${notice.detail}`}
      </p>
    </div>
  );
}
