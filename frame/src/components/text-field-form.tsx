import type { Messages } from '../i18n';
import type { UpiCollect } from '../upi-collect-model';

export const VPA_INPUT_ID = 'rail-upi-vpa';

/** UPI collect: one labelled VPA input, its hint and its error (announced politely). */
export function UpiCollectForm({ form, messages, disabled }: { form: UpiCollect; messages: Messages; disabled: boolean }) {
  const errorKey = form.errorKey.value;
  return (
    <div class="Form">
      <label class="Label" for={VPA_INPUT_ID}>
        {messages.upiLabel}
      </label>
      <input
        id={VPA_INPUT_ID}
        class={errorKey ? 'Input Input--invalid' : 'Input'}
        name="vpa"
        type="text"
        inputMode="email"
        autoComplete="off"
        autoCapitalize="none"
        autoCorrect="off"
        spellcheck={false}
        placeholder={messages.upiPlaceholder}
        aria-required="true"
        aria-invalid={errorKey ? 'true' : 'false'}
        aria-describedby={`${VPA_INPUT_ID}-hint ${VPA_INPUT_ID}-error`}
        disabled={disabled}
        value={form.vpa.value}
        onInput={(event) => form.input(event.currentTarget.value)}
        onBlur={() => form.leave()}
      />
      <p id={`${VPA_INPUT_ID}-hint`} class="Hint">
        {messages.upiHint}
      </p>
      <p id={`${VPA_INPUT_ID}-error`} class="Error" aria-live="polite">
        {errorKey && messages[errorKey]}
      </p>
    </div>
  );
}
