import type { Currency } from '../../../../protocol/currency';
import type { Mode } from '../../../../protocol/ids';
import type { AccountSettings } from '../../kernel/account-settings-types';
import type { RailAdapter } from '../../rails/rail-adapter';
import { provisionedAdapter } from '../accounts/account-settings';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/**
 * The adapter of the account's card rail in the caller's mode for a currency, or undefined when the account has no
 * card acquirer there (the default account: cards are not enabled).
 */
export function cardRailAdapter(deps: CoreDeps, auth: AuthContext, currency: Currency): RailAdapter | undefined {
  const rail = auth.account.settings.rails.find((candidate) => candidate.rail === 'card');
  if (rail === undefined || !rail.modes.includes(auth.mode) || !rail.currencies.includes(currency)) return undefined;
  return provisionedAdapter(rail, deps.rails, auth.mode);
}

/**
 * The card payment operations need a card acquirer (the spec's marker "[available on card rails]"): ERR_4004 on an
 * account without a card rail in `mode`, or in any mode when the caller has none (an operator session).
 */
export function requireCardAcquirer(settings: AccountSettings, mode: Mode | undefined): void {
  const rail = settings.rails.find((candidate) => candidate.rail === 'card');
  if (rail === undefined || (mode !== undefined && !rail.modes.includes(mode))) {
    throw new ApiError('ERR_4004', `Card operations need a card acquirer, which this account does not have${mode === undefined ? '' : ` in ${mode} mode`}.`);
  }
}
