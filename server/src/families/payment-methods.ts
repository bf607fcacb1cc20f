import { registerPaymentMethodRoutes } from '../http/routes/payment-methods/routes';
import type { Family } from './family';

export const paymentMethodsFamily: Family = { name: 'payment-methods', routes: (app, deps) => registerPaymentMethodRoutes(app, deps) };
