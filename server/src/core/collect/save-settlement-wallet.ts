import type { SaveSettlementWalletRequest } from '../../../../protocol/api/collect';
import type { UsdtWalletSettings } from '../../kernel/account-settings-types';
import { queueSecurityEmail } from '../security-emails/queue-security-email';
import type { OperatorContext } from '../sessions/operator-context';
import { requireFreshStepUp } from '../sessions/require-fresh-step-up';
import type { CoreDeps } from '../shared/deps';

/**
 * PUT /v1/collect/wallet: an operator with a fresh two-factor step-up and scope collect:write saves the one USDT
 * wallet settlements may go to (its address checked against the network's format). The change and the security
 * e-mail to every operator commit together; the next settlement request, on any instance, sees it.
 */
export async function saveSettlementWallet(deps: CoreDeps, context: OperatorContext, body: SaveSettlementWalletRequest): Promise<UsdtWalletSettings> {
  requireFreshStepUp(deps, context, 'collect:write');
  const wallet: UsdtWalletSettings = { network: body.network, address: body.address };
  await deps.store.transaction(async (tx) => {
    const account = await tx.accounts.findAccountById(context.account.accountId);
    const settings = { ...(account ?? context.account).settings, usdtWallet: wallet };
    await tx.accounts.updateAccountSettings(context.account.accountId, settings);
    await queueSecurityEmail(tx, deps, context.account, {
      subject: 'Settlement wallet changed',
      body: `${context.operator.email} set the USDT settlement wallet to ${wallet.address} on ${wallet.network}. Settlements go only there from now on.`,
    });
  });
  return wallet;
}
