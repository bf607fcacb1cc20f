import type { JSX } from 'preact';
import type { Messages } from '../i18n';
import type { TextField } from '../text-field-model';

export const VPA_INPUT_ID = 'rail-upi-vpa';
export const MSISDN_INPUT_ID = 'rail-mobile-money-number';

type InputProps = Pick<JSX.InputHTMLAttributes<HTMLInputElement>, 'type' | 'inputMode' | 'autoComplete' | 'autoCapitalize' | 'name'>;

/** A method's one labelled text input, its hint and its error (announced politely). */
function TextFieldForm({
  id,
  form,
  messages,
  disabled,
  label,
  placeholder,
  hint,
  input,
}: {
  id: string;
  form: TextField;
  messages: Messages;
  disabled: boolean;
  label: string;
  placeholder: string;
  hint: string;
  input: InputProps;
}) {
  const errorKey = form.errorKey.value;
  return (
    <div class="Form">
      <label class="Label" for={id}>
        {label}
      </label>
      <input
        id={id}
        class={errorKey ? 'Input Input--invalid' : 'Input'}
        {...input}
        autoCorrect="off"
        spellcheck={false}
        placeholder={placeholder}
        aria-required="true"
        aria-invalid={errorKey ? 'true' : 'false'}
        aria-describedby={`${id}-hint ${id}-error`}
        disabled={disabled}
        value={form.text.value}
        onInput={(event) => form.input(event.currentTarget.value)}
        onBlur={() => form.leave()}
      />
      <p id={`${id}-hint`} class="Hint">
        {hint}
      </p>
      <p id={`${id}-error`} class="Error" aria-live="polite">
        {errorKey && messages[errorKey]}
      </p>
    </div>
  );
}

/** UPI collect: the payer's VPA. */
export function UpiCollectForm({ form, messages, disabled }: { form: TextField; messages: Messages; disabled: boolean }) {
  return (
    <TextFieldForm
      id={VPA_INPUT_ID}
      form={form}
      messages={messages}
      disabled={disabled}
      label={messages.upiLabel}
      placeholder={messages.upiPlaceholder}
      hint={messages.upiHint}
      input={{ name: 'vpa', type: 'text', inputMode: 'email', autoComplete: 'off', autoCapitalize: 'none' }}
    />
  );
}

/** Mobile money: the number the provider sends its approval prompt to. */
export function MobileMoneyForm({ form, messages, disabled }: { form: TextField; messages: Messages; disabled: boolean }) {
  return (
    <TextFieldForm
      id={MSISDN_INPUT_ID}
      form={form}
      messages={messages}
      disabled={disabled}
      label={messages.mobileMoneyLabel}
      placeholder={messages.mobileMoneyPlaceholder}
      hint={messages.mobileMoneyHint}
      input={{ name: 'msisdn', type: 'tel', inputMode: 'tel', autoComplete: 'tel' }}
    />
  );
}
