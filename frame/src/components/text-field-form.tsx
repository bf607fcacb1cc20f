import type { JSX } from 'preact';
import type { MessageKey, Messages } from '../i18n';
import type { TextField } from '../text-field-model';

export const VPA_INPUT_ID = 'rail-upi-vpa';
export const MSISDN_INPUT_ID = 'rail-mobile-money-number';

type InputProps = Pick<JSX.InputHTMLAttributes<HTMLInputElement>, 'name' | 'type' | 'inputMode' | 'autoComplete' | 'autoCapitalize'>;

interface FieldText {
  id: string;
  label: MessageKey;
  placeholder: MessageKey;
  hint: MessageKey;
  input: InputProps;
}

/** The one text input of a method: UPI collect's VPA, mobile money's number (the provider prompts that phone). */
const FIELDS = {
  vpa: {
    id: VPA_INPUT_ID,
    label: 'upiLabel',
    placeholder: 'upiPlaceholder',
    hint: 'upiHint',
    input: { name: 'vpa', type: 'text', inputMode: 'email', autoComplete: 'off', autoCapitalize: 'none' },
  },
  msisdn: {
    id: MSISDN_INPUT_ID,
    label: 'mobileMoneyLabel',
    placeholder: 'mobileMoneyPlaceholder',
    hint: 'mobileMoneyHint',
    input: { name: 'msisdn', type: 'tel', inputMode: 'tel', autoComplete: 'tel' },
  },
} satisfies Record<string, FieldText>;

/** A method's labelled text input, its hint and its error (announced politely). */
export function TextFieldForm({ field, form, messages, disabled }: { field: keyof typeof FIELDS; form: TextField; messages: Messages; disabled: boolean }) {
  const { id, label, placeholder, hint, input }: FieldText = FIELDS[field];
  const errorKey = form.errorKey.value;
  return (
    <div class="Form">
      <label class="Label" for={id}>
        {messages[label]}
      </label>
      <input
        id={id}
        class={errorKey ? 'Input Input--invalid' : 'Input'}
        {...input}
        autoCorrect="off"
        spellcheck={false}
        placeholder={messages[placeholder]}
        aria-required="true"
        aria-invalid={errorKey ? 'true' : 'false'}
        aria-describedby={`${id}-hint ${id}-error`}
        disabled={disabled}
        value={form.text.value}
        onInput={(event) => form.input(event.currentTarget.value)}
        onBlur={() => form.leave()}
      />
      <p id={`${id}-hint`} class="Hint">
        {messages[hint]}
      </p>
      <p id={`${id}-error`} class="Error" aria-live="polite">
        {errorKey && messages[errorKey]}
      </p>
    </div>
  );
}
