import { registerSessionRoutes } from '../http/routes/sessions/routes';
import type { Family } from './family';

/** Operator sessions with two-factor, and the security e-mails operators receive. */
export const sessionsFamily: Family = { name: 'sessions', routes: (app, deps) => registerSessionRoutes(app, deps) };
