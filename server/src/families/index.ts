/** The one list of API families: adding a family is one line here (docs/architecture.md). */
import { accountsFamily } from './accounts';
import { collectFamily } from './collect';
import { customersFamily } from './customers';
import { demoFamily } from './demo';
import { disputesFamily } from './disputes';
import { eventsFamily } from './events';
import type { Family } from './family';
import { mandatesFamily } from './mandates';
import { paymentMethodsFamily } from './payment-methods';
import { paymentsFamily } from './payments';
import { refundsFamily } from './refunds';
import { simulatorFamily } from './simulator';
import { subscriptionsFamily } from './subscriptions';
import { systemFamily } from './system';
import { vaultFamily } from './vault';
import { keysFamily } from './keys';
import { sessionsFamily } from './sessions';
import { operatorsFamily } from './operators';

export const FAMILIES: readonly Family[] = [
  systemFamily,
  accountsFamily,
  paymentsFamily,
  refundsFamily,
  disputesFamily,
  customersFamily,
  eventsFamily,
  vaultFamily,
  simulatorFamily,
  demoFamily,
  collectFamily,
  paymentMethodsFamily,
  mandatesFamily,
  subscriptionsFamily,
  keysFamily,
  sessionsFamily,
  operatorsFamily,
];
