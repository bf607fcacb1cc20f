import type { Currency } from '../../../../protocol/currency';
import type { RailAdapter } from '../../rails/rail-adapter';
import { provisionedAdapter } from '../accounts/account-settings';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';

/**
 * The adapter of the account's card rail in the caller's mode for a currency, or undefined when the account has no
 * card acquirer there (the default account: cards are not enabled).
 */
export function cardRailAdapter(deps: CoreDeps, auth: AuthContext, currency: Currency): RailAdapter | undefined {
  const rail = auth.account.settings.rails.find((candidate) => candidate.rail === 'card');
  if (rail === undefined || !rail.modes.includes(auth.mode) || !rail.currencies.includes(currency)) return undefined;
  return provisionedAdapter(rail, deps.rails, auth.mode);
}
