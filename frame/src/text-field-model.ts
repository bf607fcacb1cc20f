import { computed, createModel, signal } from '@preact/signals';
import type { MessageKey } from './i18n';

/** A UPI virtual payment address: handle@provider (NPCI: letters, digits, dot, hyphen, underscore before the @). */
export const VPA_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{1,255}@[A-Za-z][A-Za-z0-9]{1,63}$/;

/** The UPI collect form: one VPA field, validity derived, errors shown once the customer leaves the field or submits. */
export const UpiCollectModel = createModel(() => {
  const vpa = signal('');
  const touched = signal(false);
  const vpaId = computed(() => vpa.value.trim());
  const empty = computed(() => vpaId.value === '');
  const complete = computed(() => VPA_PATTERN.test(vpaId.value));
  const errorKey = computed<MessageKey | null>(() => {
    if (!touched.value || complete.value) return null;
    return empty.value ? 'vpaRequired' : 'vpaInvalid';
  });
  return {
    vpa,
    touched,
    vpaId,
    empty,
    complete,
    errorKey,
    input(value: string) {
      vpa.value = value;
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
      vpa.value = '';
      touched.value = false;
    },
  };
});
export type UpiCollect = InstanceType<typeof UpiCollectModel>;
