import { expectTypeOf, test } from 'vitest';
import type {
  ConfirmOutcome,
  ConfirmRequest,
  FrameConfig,
  FrameConfigUpdate,
  FrameEvent,
  FrameMethods,
  HostMethods,
} from '../../protocol/frame-messages';

/** Property names a card field could travel under (PCI DSS: PAN, CVC, expiry, holder). */
type CardFieldName =
  | 'pan' | 'number' | 'cardNumber' | 'card_number' | 'card' | 'cardholder' | 'cardHolder' | 'card_holder_name'
  | 'cvc' | 'cvv' | 'cvc2' | 'card_cvc' | 'securityCode' | 'expiry' | 'exp' | 'exp_month' | 'exp_year'
  | 'expMonth' | 'expYear' | 'card_exp_month' | 'card_exp_year' | 'track' | 'track_data';

/** Named (non-index-signature) keys of T. */
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/** Every property name reachable in T: through objects, arrays, unions, function parameters and results. */
type DeepKeys<T, Depth extends unknown[] = []> = Depth['length'] extends 8
  ? never
  : T extends (...args: infer A) => infer R
    ? DeepKeys<A[number], [...Depth, 1]> | DeepKeys<Awaited<R>, [...Depth, 1]>
    : T extends readonly (infer E)[]
      ? DeepKeys<E, [...Depth, 1]>
      : T extends object
        ? { [K in KnownKeys<T>]: K | DeepKeys<T[K], [...Depth, 1]> }[KnownKeys<T>]
        : never;

type Contract = FrameMethods | HostMethods | FrameEvent | FrameConfig | FrameConfigUpdate | ConfirmRequest | ConfirmOutcome;

test('no frame <-> runtime message type has a card field', () => {
  expectTypeOf<Extract<DeepKeys<Contract>, CardFieldName>>().toEqualTypeOf<never>();
  // The walk does reach nested names, so the check above is not vacuous.
  expectTypeOf<'vpa_id' extends DeepKeys<Contract> ? true : false>().toEqualTypeOf<false>();
  expectTypeOf<'complete' | 'height' | 'return_url' | 'clientSecret' | 'field_name' | 'poll_interval_ms'>().toExtend<DeepKeys<Contract>>();
});
