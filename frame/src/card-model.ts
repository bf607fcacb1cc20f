import { computed, createModel, signal } from '@preact/signals';
import {
  detectBrand,
  formatCardNumber,
  formatExpiry,
  getCardBrandSpec,
  validateCardNumber,
  validateCvc,
  validateExpiry,
  validateHolderName,
} from './card';
import type { MessageKey } from './i18n';

/** The card fields, in tab order. The names are the vault request's field names (and the errors' field_name). */
export const CARD_FIELDS = ['card_number', 'card_exp', 'card_cvc', 'card_holder_name'] as const;
export type CardField = (typeof CARD_FIELDS)[number];

/** The body of POST /vault/tokens minus client_secret. It exists only to be sent to the vault. */
export interface VaultCard {
  card_number: string;
  card_exp_month: string;
  card_exp_year: string;
  card_cvc: string;
  card_holder_name: string;
}

/**
 * The card form. The card number, expiry, CVC and name live only in these signals (and in the one vault request
 * built by `vaultCard()`); nothing here is emitted to the host, logged or kept after `clear()`.
 * An error shows once the customer leaves the field (or submits), or at once when the value can no longer become
 * valid (a complete number failing Luhn, a month 13, a past expiry).
 */
export const CardModel = createModel((now: () => Date = () => new Date()) => {
  const number = signal('');
  const expiry = signal('');
  const cvc = signal('');
  const name = signal('');
  const touched = signal<Record<CardField, boolean>>({ card_number: false, card_exp: false, card_cvc: false, card_holder_name: false });

  const digits = computed(() => number.value.replace(/\D/g, ''));
  const brand = computed(() => detectBrand(digits.value));
  const brandName = computed(() => (brand.value ? getCardBrandSpec(brand.value).displayName : ''));
  const cvcLength = computed(() => (brand.value ? getCardBrandSpec(brand.value).cvcLength : 4));
  const numberCheck = computed(() => validateCardNumber(digits.value, { allowUnknownBrand: true }));
  const expiryCheck = computed(() => validateExpiry(expiry.value, now()));
  const cvcCheck = computed(() => validateCvc(cvc.value, brand.value));
  const nameCheck = computed(() => validateHolderName(name.value));

  const valid = computed<Record<CardField, boolean>>(() => ({
    card_number: numberCheck.value.valid,
    card_exp: expiryCheck.value.valid,
    card_cvc: cvcCheck.value.valid,
    card_holder_name: nameCheck.value.valid,
  }));
  const empty = computed(() => !digits.value && !expiry.value && !cvc.value && !name.value.trim());
  const complete = computed(() => CARD_FIELDS.every((field) => valid.value[field]));

  /** The message key of each field's visible error, or null. */
  const errors = computed<Record<CardField, MessageKey | null>>(() => {
    const shown = touched.value;
    const n = numberCheck.value;
    const e = expiryCheck.value;
    const c = cvcCheck.value;
    const h = nameCheck.value;
    const numberError: MessageKey | null = n.valid
      ? null
      : n.error === 'invalid_luhn' || n.error === 'invalid_length' || n.error === 'unknown_brand'
        ? 'cardNumberInvalid'
        : shown.card_number
          ? digits.value ? 'cardNumberIncomplete' : 'cardNumberRequired'
          : null;
    const expiryError: MessageKey | null = e.valid
      ? null
      : e.error === 'invalid_month'
        ? 'expiryInvalid'
        : e.error === 'in_the_past'
          ? 'expiryPast'
          : e.error === 'too_far'
            ? 'expiryTooFar'
            : shown.card_exp
              ? expiry.value ? 'expiryIncomplete' : 'expiryRequired'
              : null;
    const cvcError: MessageKey | null = c.valid || !shown.card_cvc ? null : cvc.value ? 'cvcIncomplete' : 'cvcRequired';
    const nameError: MessageKey | null = h.valid || !shown.card_holder_name ? null : h.error === 'empty' ? 'nameRequired' : 'nameInvalid';
    return { card_number: numberError, card_exp: expiryError, card_cvc: cvcError, card_holder_name: nameError };
  });

  const firstInvalid = computed<CardField | undefined>(() => CARD_FIELDS.find((field) => !valid.value[field]));

  return {
    number,
    expiry,
    cvc,
    name,
    touched,
    brand,
    brandName,
    cvcLength,
    valid,
    empty,
    complete,
    errors,
    firstInvalid,
    /** Formats a typed card number; returns the formatted value (the component keeps the caret). */
    setNumber(value: string): string {
      number.value = formatCardNumber(value);
      return number.value;
    },
    setExpiry(value: string): string {
      expiry.value = formatExpiry(value);
      return expiry.value;
    },
    setCvc(value: string): string {
      cvc.value = value.replace(/\D/g, '').slice(0, cvcLength.value);
      return cvc.value;
    },
    setName(value: string): void {
      name.value = value;
    },
    /** Leaving a non-empty field shows its error; leaving an empty one does not nag. */
    leave(field: CardField): void {
      const value = { card_number: number, card_exp: expiry, card_cvc: cvc, card_holder_name: name }[field].value;
      if (value.trim() !== '' && !touched.value[field]) touched.value = { ...touched.value, [field]: true };
    },
    /** A submit attempt shows every error. */
    reveal(): void {
      touched.value = { card_number: true, card_exp: true, card_cvc: true, card_holder_name: true };
    },
    clear(): void {
      number.value = '';
      expiry.value = '';
      cvc.value = '';
      name.value = '';
      touched.value = { card_number: false, card_exp: false, card_cvc: false, card_holder_name: false };
    },
    /** The vault request body; only call it when `complete` is true. */
    vaultCard(): VaultCard {
      const { month, year } = expiryCheck.value;
      return {
        card_number: digits.value,
        card_exp_month: String(month).padStart(2, '0'),
        card_exp_year: String(year),
        card_cvc: cvc.value,
        card_holder_name: nameCheck.value.name,
      };
    },
  };
});
export type Card = InstanceType<typeof CardModel>;
