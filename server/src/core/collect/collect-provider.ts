import type { CollectProvider } from '../../rails/collect-provider';
import type { AuthContext } from '../auth/auth-context';
import type { CoreDeps } from '../shared/deps';
import { ApiError } from '../shared/errors';

/** The Collect provider of the key's mode; live mode has none until credentials are issued (ERR_3010). */
export function collectProviderFor(deps: CoreDeps, auth: AuthContext): CollectProvider {
  const provider = deps.collect?.providerFor(auth.mode);
  if (provider === undefined) {
    throw new ApiError('ERR_3010', `The Collect API is not provisioned for ${auth.mode} mode on this account yet.`);
  }
  return provider;
}
