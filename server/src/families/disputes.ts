import { registerDisputeRoutes } from '../http/routes/disputes/routes';
import { registerDisputeSimulatorRoutes } from '../http/routes/disputes/simulator';
import type { Family } from './family';

/** Disputes, their evidence and files, and the test simulator's dispute calls. */
export const disputesFamily: Family = {
  name: 'disputes',
  routes: (app, deps) => {
    registerDisputeRoutes(app, deps);
    registerDisputeSimulatorRoutes(app, deps);
  },
  // Uploads stream their multipart body under a limit of their own (http/routes/disputes/multipart.ts).
  ownBodyLimit: [
    { method: 'POST', path: '/files' },
    { method: 'PUT', path: '/disputes/evidence' },
  ],
};
