import { formatKeepingCaret } from '../card';
import type { Card, CardField } from '../card-model';
import type { Messages } from '../i18n';

export const CARD_INPUT_IDS: Record<CardField, string> = {
  card_number: 'rail-card-number',
  card_exp: 'rail-card-exp',
  card_cvc: 'rail-card-cvc',
  card_holder_name: 'rail-card-name',
};
const BRAND_ID = 'rail-card-brand';

/** Writes a formatted value back into the input and keeps the caret after the same digit. */
function reformat(input: HTMLInputElement, apply: (value: string) => string): void {
  const { value, caret } = formatKeepingCaret(input.value, input.selectionStart ?? input.value.length, apply);
  input.value = value;
  if (document.activeElement === input) input.setSelectionRange(caret, caret);
}

interface FieldProps {
  field: CardField;
  label: string;
  error: string | null;
  disabled: boolean;
  extraDescribedBy?: string;
  children?: preact.ComponentChildren;
  input: preact.JSX.InputHTMLAttributes<HTMLInputElement>;
  class?: string;
}

function Field({ field, label, error, disabled, extraDescribedBy, children, input, class: className }: FieldProps) {
  const id = CARD_INPUT_IDS[field];
  return (
    <div class={className ? `Field ${className}` : 'Field'}>
      <label class="Label" for={id}>
        {label}
      </label>
      <div class="InputWrap">
        <input
          {...input}
          id={id}
          class={error ? 'Input Input--invalid' : 'Input'}
          aria-required="true"
          aria-invalid={error ? 'true' : 'false'}
          aria-describedby={[extraDescribedBy, `${id}-error`].filter(Boolean).join(' ')}
          disabled={disabled}
          spellcheck={false}
          autoCorrect="off"
        />
        {children}
      </div>
      <p id={`${id}-error`} class="Error" aria-live="polite">
        {error}
      </p>
    </div>
  );
}

/** Card number, expiry, CVC and name in this one frame document, with autofill tokens and as-you-type formatting. */
export function CardForm({ card, messages, disabled }: { card: Card; messages: Messages; disabled: boolean }) {
  const errors = card.errors.value;
  const message = (field: CardField) => {
    const key = errors[field];
    return key ? messages[key] : null;
  };
  const brandName = card.brandName.value;
  return (
    <div class="Form CardForm" data-testid="card-form">
      <Field
        field="card_number"
        label={messages.cardNumberLabel}
        error={message('card_number')}
        disabled={disabled}
        extraDescribedBy={BRAND_ID}
        input={{
          name: 'cardnumber',
          type: 'text',
          inputMode: 'numeric',
          autoComplete: 'cc-number',
          placeholder: messages.cardNumberPlaceholder,
          value: card.number.value,
          onInput: (event) => reformat(event.currentTarget, card.setNumber),
          onBlur: () => card.leave('card_number'),
        }}
      >
        <span id={BRAND_ID} class={brandName ? 'Brand Brand--known' : 'Brand'} data-brand={card.brand.value ?? ''}>
          <svg class="Brand-icon" viewBox="0 0 24 16" aria-hidden="true" focusable="false">
            <rect x="0.5" y="0.5" width="23" height="15" rx="2.5" fill="none" stroke="currentColor" />
            <rect x="0.5" y="4" width="23" height="3" fill="currentColor" />
          </svg>
          {brandName}
        </span>
      </Field>
      <div class="Row">
        <Field
          field="card_exp"
          label={messages.expiryLabel}
          error={message('card_exp')}
          disabled={disabled}
          class="Field--half"
          input={{
            name: 'exp-date',
            type: 'text',
            inputMode: 'numeric',
            autoComplete: 'cc-exp',
            placeholder: messages.expiryPlaceholder,
            value: card.expiry.value,
            onInput: (event) => reformat(event.currentTarget, card.setExpiry),
            onBlur: () => card.leave('card_exp'),
          }}
        />
        <Field
          field="card_cvc"
          label={messages.cvcLabel}
          error={message('card_cvc')}
          disabled={disabled}
          class="Field--half"
          input={{
            name: 'cvc',
            type: 'text',
            inputMode: 'numeric',
            autoComplete: 'cc-csc',
            placeholder: messages.cvcPlaceholder,
            maxLength: card.cvcLength.value,
            value: card.cvc.value,
            onInput: (event) => {
              event.currentTarget.value = card.setCvc(event.currentTarget.value);
            },
            onBlur: () => card.leave('card_cvc'),
          }}
        />
      </div>
      <Field
        field="card_holder_name"
        label={messages.nameLabel}
        error={message('card_holder_name')}
        disabled={disabled}
        input={{
          name: 'ccname',
          type: 'text',
          autoComplete: 'cc-name',
          autoCapitalize: 'words',
          value: card.name.value,
          onInput: (event) => card.setName(event.currentTarget.value),
          onBlur: () => card.leave('card_holder_name'),
        }}
      />
    </div>
  );
}
