import { computed, createModel, signal } from '@preact/signals';
import { MSISDN_PATTERN, normalizeMsisdn } from '../../protocol/msisdn';
import type { MessageKey } from './i18n';

/** What one text input of a method takes: how typed text is cleaned, when it is valid, and its two error messages. */
export interface TextFieldRule {
  normalize(typed: string): string;
  isValid(value: string): boolean;
  requiredKey: MessageKey;
  invalidKey: MessageKey;
}

/** A UPI virtual payment address: handle@provider (NPCI: letters, digits, dot, hyphen, underscore before the @). */
export const VPA_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{1,255}@[A-Za-z][A-Za-z0-9]{1,63}$/;

/** UPI collect: the payer's VPA. */
export const VPA_RULE: TextFieldRule = {
  normalize: (typed) => typed.trim(),
  isValid: (value) => VPA_PATTERN.test(value),
  requiredKey: 'vpaRequired',
  invalidKey: 'vpaInvalid',
};

/** Mobile money: the number the provider sends its approval prompt to. */
export const MSISDN_RULE: TextFieldRule = {
  normalize: normalizeMsisdn,
  isValid: (value) => MSISDN_PATTERN.test(value),
  requiredKey: 'msisdnRequired',
  invalidKey: 'msisdnInvalid',
};

/**
 * A method's one text input (UPI collect's VPA, mobile money's number): validity derived from the rule, errors shown
 * once the customer leaves the field or submits.
 */
export const TextFieldModel = createModel((rule: TextFieldRule) => {
  const text = signal('');
  const touched = signal(false);
  const value = computed(() => rule.normalize(text.value));
  const empty = computed(() => value.value === '');
  const complete = computed(() => rule.isValid(value.value));
  const errorKey = computed<MessageKey | null>(() => {
    if (!touched.value || complete.value) return null;
    return empty.value ? rule.requiredKey : rule.invalidKey;
  });
  return {
    /** What the customer typed, as shown in the input. */
    text,
    touched,
    /** What confirm sends. */
    value,
    empty,
    complete,
    errorKey,
    input(typed: string) {
      text.value = typed;
    },
    /** Leaving a non-empty field shows its error; leaving an empty one does not nag. */
    leave() {
      if (!empty.value) touched.value = true;
    },
    /** A submit attempt shows every error. */
    reveal() {
      touched.value = true;
    },
    clear() {
      text.value = '';
      touched.value = false;
    },
  };
});
export type TextField = InstanceType<typeof TextFieldModel>;
