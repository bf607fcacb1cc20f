import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { NoQuery } from '../../../../../protocol/api/no-query';
import { z } from 'zod';
import { CancelPaymentRequest, CancelPostCaptureRequest, CapturePaymentRequest, EligibilityRequest, EligibilityResponse, IncrementalAuthorizationRequest, ListPaymentsQuery, PaymentListResponse, PollIdParam, PollStatusQuery, PollStatusResponse, UpdateMetadataRequest, UpdateMetadataResponse, UpdatePaymentRequest } from '../../../../../protocol/api/payment-ops';
import { PaymentIdParam, PaymentResponse } from '../../../../../protocol/api/payments';
import { cancelPayment } from '../../../core/payments/cancel-payment';
import { cancelPostCapture } from '../../../core/payments/cancel-post-capture';
import { capturePaymentResponse } from '../../../core/payments/capture-payment';
import { extendAuthorization } from '../../../core/payments/extend-authorization';
import { incrementalAuthorization } from '../../../core/payments/incremental-authorization';
import { listPayments } from '../../../core/payments/list-payments';
import { toPaymentResponse } from '../../../core/payments/payment-view';
import { retrievePollStatus } from '../../../core/payments/retrieve-poll-status';
import { submitEligibility } from '../../../core/payments/submit-eligibility';
import { updatePayment } from '../../../core/payments/update-payment';
import { updatePaymentMetadata } from '../../../core/payments/update-payment-metadata';
import { type AppEnv, coreDeps } from '../../env';
import { authenticate, type AuthenticateDeps } from '../../middleware/authenticate';
import { parseJsonBody, refuseBodyFields, rejectRawCardNumbers } from '../../middleware/json-body';
import { ERROR_RESPONSES, SECURITY } from '../../openapi';

const PaymentPath = z.object({ get payment_id() { return PaymentIdParam.unwrap(); } });
const paymentJson = { content: { 'application/json': { schema: PaymentResponse } } } as const;
const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: { 'application/json': { schema } } }) as const;

/**
 * The payments operations beyond create / confirm / retrieve (issue 3). Registered before registerPaymentRoutes so
 * that GET /payments/list is not taken for GET /payments/{payment_id}.
 */
export function registerPaymentOpsRoutes(app: OpenAPIHono<AppEnv>, deps: AuthenticateDeps): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/payments/list',
      tags: ['Payments'],
      summary: 'List payments, newest first (secret key)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret'])] as const,
      request: { query: ListPaymentsQuery },
      responses: {
        200: { description: 'A page of payments', content: { 'application/json': { schema: PaymentListResponse } } },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => c.json(await listPayments(coreDeps(c, deps), c.get('auth'), c.req.valid('query')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payments/{payment_id}',
      tags: ['Payments'],
      summary: 'Update a payment (secret key, or publishable key with client_secret)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret', 'publishable']), parseJsonBody, rejectRawCardNumbers] as const,
      request: { query: NoQuery, params: PaymentPath, body: jsonBody(UpdatePaymentRequest) },
      responses: { 200: { description: 'The updated payment', ...paymentJson }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      const payment = await updatePayment(coreDeps(c, deps), c.get('auth'), c.req.valid('param').payment_id, c.req.valid('json'));
      return c.json(toPaymentResponse(payment), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payments/{payment_id}/cancel',
      tags: ['Payments'],
      summary: 'Cancel a payment (secret key)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, params: PaymentPath, body: jsonBody(CancelPaymentRequest) },
      responses: { 200: { description: 'The cancelled payment', ...paymentJson }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      const payment = await cancelPayment(coreDeps(c, deps), c.get('auth'), c.req.valid('param').payment_id, c.req.valid('json'));
      return c.json(toPaymentResponse(payment), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payments/{payment_id}/update_metadata',
      tags: ['Payments'],
      summary: 'Update the metadata of a payment already sent to a rail (secret key; needs a rail that accepts metadata updates)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, params: PaymentPath, body: jsonBody(UpdateMetadataRequest) },
      responses: {
        200: { description: 'The updated metadata', content: { 'application/json': { schema: UpdateMetadataResponse } } },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => c.json(await updatePaymentMetadata(coreDeps(c, deps), c.get('auth'), c.req.valid('param').payment_id, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payments/{payment_id}/eligibility',
      tags: ['Payments'],
      summary: 'Submit eligibility data before confirm (publishable key with client_secret)',
      security: SECURITY,
      middleware: [authenticate(deps, ['publishable']), parseJsonBody, rejectRawCardNumbers] as const,
      request: { query: NoQuery, params: PaymentPath, body: jsonBody(EligibilityRequest) },
      responses: {
        200: { description: 'What the client does next', content: { 'application/json': { schema: EligibilityResponse } } },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => c.json(await submitEligibility(coreDeps(c, deps), c.get('auth'), c.req.valid('param').payment_id, c.req.valid('json')), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/poll/status/{poll_id}',
      tags: ['Payments'],
      summary: 'Retrieve the status of a poll (publishable key with the payment\'s client_secret)',
      security: SECURITY,
      middleware: [authenticate(deps, ['publishable'])] as const,
      request: { query: PollStatusQuery, params: z.object({ get poll_id() { return PollIdParam.unwrap(); } }) },
      responses: {
        200: { description: 'The poll', content: { 'application/json': { schema: PollStatusResponse } } },
        ...ERROR_RESPONSES,
      },
    }),
    async (c) => c.json(await retrievePollStatus(coreDeps(c, deps), c.get('auth'), c.req.valid('param').poll_id, c.req.valid('query').client_secret), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payments/{payment_id}/capture',
      tags: ['Payments'],
      summary: 'Capture a payment (secret key; needs a rail with manual capture)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, params: PaymentPath, body: jsonBody(CapturePaymentRequest) },
      responses: { 200: { description: 'The captured payment', ...paymentJson }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      return c.json(await capturePaymentResponse(coreDeps(c, deps), c.get('auth'), c.req.valid('param').payment_id, c.req.valid('json')), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payments/{payment_id}/cancel_post_capture',
      tags: ['Payments'],
      summary: 'Cancel a payment after capture (secret key; needs a rail with manual capture)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, params: PaymentPath, body: jsonBody(CancelPostCaptureRequest) },
      responses: { 200: { description: 'The payment', ...paymentJson }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      const payment = await cancelPostCapture(coreDeps(c, deps), c.get('auth'), c.req.valid('param').payment_id, c.req.valid('json'));
      return c.json(toPaymentResponse(payment), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payments/{payment_id}/incremental_authorization',
      tags: ['Payments'],
      summary: 'Increase the authorized amount (secret key; needs a rail with manual capture)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), parseJsonBody] as const,
      request: { query: NoQuery, params: PaymentPath, body: jsonBody(IncrementalAuthorizationRequest) },
      responses: { 200: { description: 'The payment', ...paymentJson }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      const payment = await incrementalAuthorization(coreDeps(c, deps), c.get('auth'), c.req.valid('param').payment_id, c.req.valid('json'));
      return c.json(toPaymentResponse(payment), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/payments/{payment_id}/extend_authorization',
      tags: ['Payments'],
      summary: 'Extend the validity of an authorization (secret key; needs a rail with manual capture)',
      security: SECURITY,
      middleware: [authenticate(deps, ['secret']), refuseBodyFields] as const,
      request: { query: NoQuery, params: PaymentPath },
      responses: { 200: { description: 'The payment', ...paymentJson }, ...ERROR_RESPONSES },
    }),
    async (c) => {
      const payment = await extendAuthorization(coreDeps(c, deps), c.get('auth'), c.req.valid('param').payment_id);
      return c.json(toPaymentResponse(payment), 200);
    },
  );
}
