import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import type { LoaderOption } from '../../../protocol/frame-messages';
import { displayAmount } from '../display-amount';
import type { Payment } from '../payment-model';
import { MethodPanel, MethodTabs } from './method-panel';
import { NextActionScreen } from './next-action-screen';

export const NOTICE_ID = 'rail-notice';

function Loading({ text, loader }: { text: string; loader: LoaderOption }) {
  return (
    <div class="Loading" data-testid="loading">
      {loader !== 'never' && (
        <div class="Skeleton" aria-hidden="true">
          <span class="Skeleton-line Skeleton-line--short" />
          <span class="Skeleton-line" />
        </div>
      )}
      <p class="VisuallyHidden">{text}</p>
    </div>
  );
}

/** Whether this document has formatted an amount already: ICU's data is loaded, formatting is cheap. */
let amountFormattedBefore = false;

/**
 * The amount's value, formatted after the first paint of the form. The first Intl formatter of a renderer process
 * loads ICU's data, 10 to 40 ms of main thread: paid in the first render, it would hold `ready` back by as much,
 * while the fields that take input need no Intl. So the line is there from the first render and its value follows
 * a frame later (docs/runtime.md, "Mount to ready"); once ICU is loaded, the value renders with the line.
 */
function AmountValue({ value, currency, locale }: { value: number; currency: string; locale: string }) {
  const [text, setText] = useState(() => (amountFormattedBefore ? displayAmount(value, currency, locale) : ''));
  useEffect(() => {
    amountFormattedBefore = true;
    setText(displayAmount(value, currency, locale));
  }, [value, currency, locale]);
  return <span class="Amount-value">{text}</span>;
}

export interface PaymentFormProps {
  model: Payment;
  onEscape(): void;
  /** Enter in a field: implicit submission, forwarded to the host. */
  onSubmit?(): void;
  /** After each render that changed the phase, once its DOM is in place (before the browser paints it). */
  onRendered?(): void;
}

/** The element's whole UI: amount, method selector, the method form or next-action screen, and one polite live region. */
export function PaymentForm({ model, onEscape, onSubmit, onRendered }: PaymentFormProps) {
  const messages = model.messages.value;
  const amount = model.amount.value;
  const phase = model.phase.value;
  useLayoutEffect(() => onRendered?.(), [phase]);
  const notice = model.notice.value;
  const screen = model.screen.value;
  const busy = phase === 'processing' || phase === 'waiting' || phase === 'action';
  const disabled = busy || phase === 'done';
  return (
    <form
      class="Root"
      lang={model.locale.value}
      aria-busy={phase === 'loading' || busy}
      noValidate
      onSubmit={(event) => event.preventDefault()}
      onKeyDown={(event) => {
        const target = event.target as HTMLElement;
        if (event.key === 'Escape') onEscape();
        else if (event.key === 'Enter' && (target.tagName === 'INPUT' || target.tagName === 'SELECT') && !event.isComposing) {
          event.preventDefault();
          onSubmit?.();
        }
      }}
    >
      {amount && (
        <p class="Amount">
          <span class="Amount-label">{messages.amount}</span>{' '}
          <AmountValue value={amount.value} currency={amount.currency} locale={model.locale.value} />
        </p>
      )}
      {phase === 'loading' && <Loading text={messages.loading} loader={model.config.value.loader ?? 'auto'} />}
      {phase !== 'loading' && phase !== 'loaderror' && model.methodAvailable.value && (
        <>
          <MethodTabs model={model} messages={messages} disabled={disabled} />
          {screen ? <NextActionScreen action={screen} messages={messages} locale={model.locale.value} /> : <MethodPanel model={model} messages={messages} disabled={disabled} />}
        </>
      )}
      {(phase === 'waiting' || phase === 'action') && (
        <div class="Wait" aria-hidden="true">
          <span class="Spinner" />
        </div>
      )}
      <p id={NOTICE_ID} class={notice ? `Notice Notice--${notice.kind}` : 'Notice'} role="status" aria-live="polite">
        {notice && messages[notice.key]}
        {notice?.detail && ` ${notice.detail}`}
      </p>
    </form>
  );
}
