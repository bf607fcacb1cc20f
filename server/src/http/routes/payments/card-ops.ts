import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import {
  CardIssuerListQuery,
  CardIssuerListResponse,
  CompleteAuthorizeRequest,
  ExternalThreeDsAuthenticationRequest,
  ExternalThreeDsAuthenticationResponse,
  PostSessionTokensRequest,
  PostSessionTokensResponse,
  SessionTokenRequest,
  SessionTokenResponse,
  ThreeDsDecisionExecuteRequest,
  ThreeDsDecisionExecuteResponse,
} from '../../../../../protocol/api/card-ops';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { PaymentIdParam, PaymentResponse } from '../../../../../protocol/api/payments';
import { executeThreeDsDecision } from '../../../core/cards/execute-three-ds-decision';
import { listCardIssuers } from '../../../core/cards/list-card-issuers';
import { authenticateExternalThreeDs } from '../../../core/payments/authenticate-external-three-ds';
import { completeAuthorize } from '../../../core/payments/complete-authorize';
import { createSessionTokens } from '../../../core/payments/create-session-tokens';
import { toPaymentResponse } from '../../../core/payments/payment-view';
import { postSessionTokens } from '../../../core/payments/post-session-tokens';
import type { AuthContext } from '../../../core/auth/auth-context';
import { type AppEnv, coreDeps } from '../../env';
import { authenticate, type AuthenticateDeps } from '../../middleware/authenticate';
import { parseJsonBody } from '../../middleware/json-body';
import { rejectRawCardNumbersInBody } from '../../middleware/reject-raw-card-body';
import { secretKeyOrOperatorSession } from '../../middleware/secret-key-or-session';
import { ERROR_RESPONSES, SECURITY, SESSION_SECURITY, jsonContent } from '../../openapi';

const PaymentPath = z.object({ get payment_id() { return PaymentIdParam.unwrap(); } });
const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, ...jsonContent(schema) }) as const;

/**
 * The card payment operations of the spec (issue 12): card issuers, wallet session tokens, external 3DS
 * authentication, complete authorize, post session tokens and the 3DS decision rules. The publishable-key routes
 * reach only the payment of the client_secret presented; raw card numbers are refused on every body (ERR_2029).
 */
export function registerCardOpsRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/card_issuers',
      tags: ['Cards'],
      summary: 'Search card issuers by name (secret key or operator session)',
      security: [...SECURITY, ...SESSION_SECURITY],
      middleware: [secretKeyOrOperatorSession(deps)] as const,
      request: { query: CardIssuerListQuery },
      responses: { 200: { description: 'The matching issuers', ...jsonContent(CardIssuerListResponse) }, ...ERROR_RESPONSES },
    }),
    (c) => {
      // Set by the middleware: the key's context, or the operator session's (no mode).
      const auth = c.get('auth') as AuthContext | undefined;
      const settings = auth?.account.settings ?? c.get('operator').account.settings;
      return c.json(listCardIssuers(settings, auth?.mode, c.req.valid('query')), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payments/session_tokens',
      tags: ['Cards'],
      summary: 'Wallet session tokens for a payment (publishable key with client_secret)',
      security: SECURITY,
      middleware: [authenticate(deps, ['publishable']), parseJsonBody, rejectRawCardNumbersInBody] as const,
      request: { query: NoQuery, body: jsonBody(SessionTokenRequest) },
      responses: { 200: { description: 'A session token per offered wallet', ...jsonContent(SessionTokenResponse) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await createSessionTokens(coreDeps(c, deps), c.get('auth'), c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payments/{payment_id}/3ds/authentication',
      tags: ['Cards'],
      summary: 'Run the external 3DS authentication of a card payment (publishable key with client_secret)',
      security: SECURITY,
      middleware: [authenticate(deps, ['publishable']), parseJsonBody, rejectRawCardNumbersInBody] as const,
      request: { query: NoQuery, params: PaymentPath, body: jsonBody(ExternalThreeDsAuthenticationRequest) },
      responses: { 200: { description: 'The authentication result', ...jsonContent(ExternalThreeDsAuthenticationResponse) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await authenticateExternalThreeDs(coreDeps(c, deps), c.get('auth'), c.req.valid('param').payment_id, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payments/{payment_id}/complete_authorize',
      tags: ['Cards'],
      summary: 'Authorize a card payment after its external 3DS authentication (publishable key with client_secret)',
      security: SECURITY,
      middleware: [authenticate(deps, ['publishable']), parseJsonBody, rejectRawCardNumbersInBody] as const,
      request: { query: NoQuery, params: PaymentPath, body: jsonBody(CompleteAuthorizeRequest) },
      responses: { 200: { description: 'The payment', ...jsonContent(PaymentResponse) }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      const payment = await completeAuthorize(coreDeps(c, deps), c.get('auth'), c.req.valid('param').payment_id, c.req.valid('json'));
      return c.json(toPaymentResponse(payment), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payments/{payment_id}/post_session_tokens',
      tags: ['Cards'],
      summary: 'Open the wallet order a client SDK needs before confirm (publishable key with client_secret)',
      security: SECURITY,
      middleware: [authenticate(deps, ['publishable']), parseJsonBody, rejectRawCardNumbersInBody] as const,
      request: { query: NoQuery, params: PaymentPath, body: jsonBody(PostSessionTokensRequest) },
      responses: { 200: { description: 'What the client SDK does next', ...jsonContent(PostSessionTokensResponse) }, ...ERROR_RESPONSES },
    }),
    async (c) => c.json(await postSessionTokens(coreDeps(c, deps), c.get('auth'), c.req.valid('param').payment_id, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/three_ds_decision/execute',
      tags: ['Cards'],
      summary: 'Run the 3DS decision rule set on a payment description (secret key)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody, rejectRawCardNumbersInBody] as const,
      request: { query: NoQuery, body: jsonBody(ThreeDsDecisionExecuteRequest) },
      responses: { 200: { description: 'The decision', ...jsonContent(ThreeDsDecisionExecuteResponse) }, ...ERROR_RESPONSES },
    }),
    (c) => c.json(executeThreeDsDecision(c.get('auth'), c.req.valid('json')), 200),
  );
}
