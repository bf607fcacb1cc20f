import { registerCardOpsRoutes } from '../http/routes/payments/card-ops';
import { registerPaymentOpsRoutes } from '../http/routes/payments/operations';
import { registerPaymentRoutes } from '../http/routes/payments/routes';
import type { Family } from './family';

export const paymentsFamily: Family = {
  name: 'payments',
  routes: (app, deps) => {
    registerPaymentRoutes(app, deps);
    registerPaymentOpsRoutes(app, deps);
    registerCardOpsRoutes(app, deps);
  },
};
