import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { CreateSessionRequest, EndedSession, SecurityEmailList, SessionResponse, TwoFactorEnrollment, VerifiedSession, VerifySessionRequest } from '../../../../../protocol/api/keys';
import { enrollTwoFactor } from '../../../core/sessions/enroll-two-factor';
import { listSecurityEmails } from '../../../core/security-emails/list-security-emails';
import { createSession } from '../../../core/sessions/create-session';
import { endSession } from '../../../core/sessions/end-session';
import { verifySession } from '../../../core/sessions/verify-session';
import type { CoreDeps } from '../../../core/shared/deps';
import { parseJsonBody, refuseBodyFields } from '../../middleware/json-body';
import { operatorSession, SESSION_COOKIE } from '../../middleware/operator-session';
import { type AppEnv, coreDeps } from '../../env';
import { ERROR_RESPONSES, SESSION_SECURITY, jsonContent } from '../../openapi';
import { limitSignIn, limitSubject, type RateLimitDeps } from '../../rate-limit';


export interface SessionRouteDeps extends CoreDeps {
  publicBaseUrl: string;
  rateLimits: RateLimitDeps | undefined;
}

/** Secure cookies everywhere but plain-HTTP localhost, where browsers would drop them. */
function cookieIsSecure(publicBaseUrl: string): boolean {
  const { protocol, hostname } = new URL(publicBaseUrl);
  return protocol === 'https:' || !['localhost', '127.0.0.1', '[::1]'].includes(hostname);
}

/** Operator sessions (docs/operations.md "Operator sessions", docs/keys.md): sign in, verify a TOTP code, sign out; the security e-mails. */
export function registerSessionRoutes(app: OpenAPIHono<AppEnv>, deps: SessionRouteDeps): void {
  const secure = cookieIsSecure(deps.publicBaseUrl);

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/sessions',
      tags: ['Sessions'],
      summary: 'Sign in with e-mail and password; the session needs a TOTP verification before key management',
      middleware: [parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: CreateSessionRequest } } } },
      responses: { 200: { description: 'The session token (also set as an HttpOnly cookie)', ...jsonContent(SessionResponse) }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      const body = c.req.valid('json');
      await limitSignIn(c, deps.rateLimits, body.email.toLowerCase());
      const { token, session } = await createSession(coreDeps(c, deps), body);
      setCookie(c, SESSION_COOKIE, token, { httpOnly: true, secure, sameSite: 'Strict', path: '/v1', expires: session.expiresAt });
      return c.json({ session_token: token, expires_at: session.expiresAt.toISOString(), two_factor_fresh_until: null }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/sessions/verify',
      tags: ['Sessions'],
      summary: "Verify the current TOTP code: key management opens for the step-up window",
      security: SESSION_SECURITY,
      middleware: [operatorSession(deps, { keyManagement: false }), parseJsonBody] as const,
      request: { query: NoQuery, body: { required: true, content: { 'application/json': { schema: VerifySessionRequest } } } },
      responses: { 200: { description: 'Verified', ...jsonContent(VerifiedSession) }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      const operator = c.get('operator');
      await limitSubject(c, deps.rateLimits, 'operator_verify', operator.operator.operatorId);
      const { freshUntil } = await verifySession(coreDeps(c, deps), operator, c.req.valid('json'));
      return c.json({ expires_at: operator.session.expiresAt.toISOString(), two_factor_fresh_until: freshUntil.toISOString() }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/sessions/two-factor',
      tags: ['Sessions'],
      summary: 'Enrol a second factor (an operator without one): the TOTP secret, shown once',
      security: SESSION_SECURITY,
      middleware: [operatorSession(deps, { keyManagement: false }), refuseBodyFields] as const,
      request: { query: NoQuery },
      responses: { 200: { description: 'The new TOTP secret and its otpauth URI', ...jsonContent(TwoFactorEnrollment) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await enrollTwoFactor(coreDeps(c, deps), c.get('operator')), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/sessions',
      tags: ['Sessions'],
      summary: 'Sign out: the session token stops working at once',
      security: SESSION_SECURITY,
      middleware: [operatorSession(deps, { keyManagement: false })] as const,
      request: { query: NoQuery },
      responses: { 200: { description: 'Ended', ...jsonContent(EndedSession) }, ...ERROR_RESPONSES },
    }),
    async (c: Context<AppEnv>) => {
      await endSession(coreDeps(c, deps), c.get('operator'));
      deleteCookie(c, SESSION_COOKIE, { path: '/v1', secure });
      return c.json({ ended: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/security-emails',
      tags: ['Sessions'],
      summary: "The account's security e-mails (key created, rotated, revoked), sent or waiting for SMTP",
      security: SESSION_SECURITY,
      middleware: [operatorSession(deps, { keyManagement: false })] as const,
      request: { query: NoQuery },
      responses: { 200: { description: 'Newest first', ...jsonContent(SecurityEmailList) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json({ data: await listSecurityEmails(coreDeps(c, deps), c.get('operator')) }, 200),
  );
}
