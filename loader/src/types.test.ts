import { expectTypeOf, test } from 'vitest';
import type { ApiErrorObject } from '../../protocol/errors';
import type { Appearance, ConfirmOutcome, Locale, PaymentResult } from '../../protocol/frame-messages';
import type { ConfirmPaymentResult, RailAppearance, RailError, RailLocale, RailPayment } from './types';

// The published types are self-contained; these compile-time checks (run by `tsc`) keep them equal to protocol/.
test('the public types match the frame <-> runtime contract', () => {
  expectTypeOf<RailLocale>().toEqualTypeOf<Locale>();
  expectTypeOf<RailAppearance>().toEqualTypeOf<Appearance>();
  // confirmPayment's payment_failed error also carries the payment and its decline code.
  expectTypeOf<Omit<RailError, 'payment' | 'decline_code'>>().toEqualTypeOf<ApiErrorObject>();
  expectTypeOf<PaymentResult>().toExtend<RailPayment>();
  expectTypeOf<ConfirmOutcome>().toExtend<ConfirmPaymentResult>();
});
