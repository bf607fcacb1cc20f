import type { AuthorizationValidity, RailAdapter } from '../../rails/rail-adapter';
import type { RailName } from '../../kernel/account-settings-types';
import type { PaymentRecord } from '../../storage/payments/records';
import type { CoreDeps } from '../shared/deps';

/** The adapter of the rail that took the payment, when one is wired for its mode. */
export function railAdapterOf(deps: CoreDeps, payment: PaymentRecord): RailAdapter | undefined {
  if (payment.rail === null) return undefined;
  return deps.rails.adapterFor(payment.mode, payment.rail as RailName);
}

/** The validity terms of the rail that took the payment (undefined: the rail sets no expiry on authorizations). */
export function authorizationValidityOf(deps: CoreDeps, payment: PaymentRecord): AuthorizationValidity | undefined {
  return railAdapterOf(deps, payment)?.authorizationValidity;
}
