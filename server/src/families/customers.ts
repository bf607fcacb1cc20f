import { registerCustomerRoutes } from '../http/routes/customers/routes';
import type { Family } from './family';

export const customersFamily: Family = { name: 'customers', routes: (app, deps) => registerCustomerRoutes(app, deps) };
