import type { ApiErrorObject } from '../../protocol/errors';
import { PUBLISHABLE_KEY_QUERY_NAME, paymentIdFromClientSecret } from '../../protocol/ids';
import type { PaymentResult } from '../../protocol/frame-messages';
import type {
  ConfirmPaymentOptions,
  ConfirmPaymentResult,
  Elements,
  ElementsOptions,
  Rail,
  RailError,
  RailOptions,
} from '../../loader/src/types';
import { createElements, type ElementsState } from './elements';
import { IntegrationError, describeValue, railError } from './errors';
import type { RuntimeEnv } from './env';

/** Statuses after which a payment never changes (protocol/payments.ts FINAL_PAYMENT_STATUSES, without zod). */
export const FINAL_STATUSES = ['succeeded', 'failed', 'cancelled', 'cancelled_post_capture', 'partially_captured', 'expired'];
/** Final statuses that confirmPayment resolves as `{ error }` (type payment_failed), never as `{ payment }`. */
export const UNSUCCESSFUL_STATUSES = ['failed', 'cancelled', 'cancelled_post_capture', 'expired'];

function paymentFailed(payment: PaymentResult): RailError {
  const error: RailError = { ...railError('ERR_6007', payment.error_message ?? `The payment ${payment.status === 'failed' ? 'failed' : 'was cancelled'}.`), payment };
  if (payment.error_code) error.decline_code = payment.error_code;
  return error;
}

const PUBLISHABLE_KEY = /^rail_open_(test|live)_\w+$/;
const MAX_RETURN_URL_LENGTH = 2048;

function checkHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/** return_url with payment_id and status appended, as `redirect: 'always'` lands on it. */
export function returnUrlFor(returnUrl: string, payment: PaymentResult): string {
  const url = new URL(returnUrl);
  url.searchParams.set('payment_id', payment.payment_id);
  url.searchParams.set('status', payment.status);
  return url.href;
}

/** Creates one independent Rail instance; nothing is shared with other instances on the page. */
export function createRail(publishableKey: string, options: RailOptions | undefined, env: RuntimeEnv): Rail {
  if (typeof publishableKey !== 'string' || !PUBLISHABLE_KEY.test(publishableKey)) {
    const secret = typeof publishableKey === 'string' && publishableKey.startsWith('rail_full_');
    throw new IntegrationError(
      'ERR_6002',
      secret
        ? 'Expected a publishable key (rail_open_...), got a secret key (rail_full_...). Never use a secret key in a browser.'
        : `Expected a publishable key like "rail_open_test_...", got ${describeValue(publishableKey)}.`,
    );
  }
  const { customBackendUrl, profileId } = options ?? {};
  // No request can use a profile yet (the payment's methods come from its account), so refuse it rather than
  // accept it and ignore it.
  if (profileId !== undefined) {
    throw new IntegrationError('ERR_6002', 'profileId is not supported yet: the methods shown are those of the account that created the payment. Remove profileId.');
  }
  if (customBackendUrl !== undefined && (typeof customBackendUrl !== 'string' || !checkHttpUrl(customBackendUrl))) {
    throw new IntegrationError('ERR_6002', `Expected customBackendUrl to be an http(s) URL, got ${describeValue(customBackendUrl)}.`);
  }
  // Undefined: the deployment's (the frame reads it from its document; retrievePayment asks the js listener).
  const apiBaseUrl = (customBackendUrl ?? env.apiBaseUrl)?.replace(/\/+$/, '');
  const instanceEnv: RuntimeEnv = {
    ...env,
    // Above 2^31 - 1 ms browsers fire a timer at once: such a timeout would fail every mount.
    frameTimeout: typeof options?.frameTimeout === 'number' && options.frameTimeout > 0 && options.frameTimeout < 2 ** 31 ? options.frameTimeout : env.frameTimeout,
  };
  // Per-instance registry: confirmPayment accepts only elements groups this instance created.
  const groups = new WeakMap<Elements, ElementsState>();

  async function confirm(params: ConfirmPaymentOptions): Promise<ConfirmPaymentResult> {
    const state = params && typeof params === 'object' ? groups.get(params.elements) : undefined;
    if (!state) return { error: railError('ERR_6002', 'Expected `elements` created by this Rail instance.', 'elements') };
    const redirect = params.redirect ?? 'if_required';
    if (redirect !== 'always' && redirect !== 'if_required') {
      return { error: railError('ERR_2003', `Expected redirect to be "always" or "if_required", got ${describeValue(redirect)}.`, 'redirect') };
    }
    const returnUrl = params.confirmParams?.return_url;
    if (returnUrl !== undefined && (typeof returnUrl !== 'string' || returnUrl.length > MAX_RETURN_URL_LENGTH || !checkHttpUrl(returnUrl))) {
      return { error: railError('ERR_2003', 'Expected return_url to be an absolute http(s) URL of at most 2048 characters.', 'return_url') };
    }
    if (redirect === 'always' && returnUrl === undefined) {
      return { error: railError('ERR_2001', 'redirect "always" needs confirmParams.return_url.', 'return_url') };
    }
    const handle = state.payment;
    if (!handle || !handle.isMounted()) return { error: railError('ERR_6001', 'Mount the payment element before confirming.') };

    const remote = await handle.remote();
    if ('code' in remote) return { error: remote as ApiErrorObject };
    let outcome;
    try {
      outcome = await remote.confirm(returnUrl === undefined ? { redirect } : { redirect, return_url: returnUrl });
    } catch {
      return { error: railError(handle.isMounted() ? 'ERR_6003' : 'ERR_6006', 'The payment frame stopped answering during confirm.') };
    }
    if ('error' in outcome) {
      if (outcome.focused) handle.focusFrame(outcome.error.field_name);
      return { error: outcome.error };
    }
    const { payment } = outcome;
    const action = payment.next_action;
    // Only a URL from the API's own next_action may move the top window, and only to http(s).
    if (action?.type === 'redirect_to_url') {
      if (!checkHttpUrl(action.redirect_to_url)) {
        return { error: railError('ERR_5000', 'The payment asked for a redirect to a URL that is not http(s); it was refused.') };
      }
      env.navigate(action.redirect_to_url);
      return new Promise(() => {});
    }
    if (redirect === 'always' && returnUrl !== undefined && FINAL_STATUSES.includes(payment.status)) {
      env.navigate(returnUrlFor(returnUrl, payment));
      return new Promise(() => {});
    }
    // A payment that ended without succeeding is an error, so `if (error) … else thank the customer` is safe.
    if (UNSUCCESSFUL_STATUSES.includes(payment.status)) return { error: paymentFailed(payment) };
    return { payment };
  }

  async function retrievePayment(clientSecret: string): Promise<ConfirmPaymentResult> {
    const paymentId = typeof clientSecret === 'string' ? paymentIdFromClientSecret(clientSecret) : undefined;
    if (!paymentId) return { error: railError('ERR_6002', `Expected a client secret, got ${describeValue(clientSecret)}.`, 'client_secret') };
    try {
      const base = apiBaseUrl ?? (await env.deploymentApiBaseUrl()).replace(/\/+$/, '');
      if (!checkHttpUrl(base)) throw new Error('The API base URL is not http(s).');
      // The key rides in the URL, not a header, so this GET needs no CORS preflight (docs/security.md).
      const response = await env.fetch(
        `${base}/payments/${encodeURIComponent(paymentId)}?client_secret=${encodeURIComponent(clientSecret)}&${PUBLISHABLE_KEY_QUERY_NAME}=${encodeURIComponent(publishableKey)}`,
      );
      const body = await response.json();
      if (body?.error?.code) return { error: body.error };
      if (!response.ok || typeof body?.payment_id !== 'string') throw new Error(`HTTP ${response.status}`);
      return { payment: body };
    } catch {
      return { error: railError('ERR_6004', 'Could not reach the payments API.') };
    }
  }

  return {
    elements(elementsOptions: ElementsOptions): Elements {
      return createElements(instanceEnv, apiBaseUrl === undefined ? { publishableKey } : { publishableKey, apiBaseUrl }, elementsOptions, (elements, state) =>
        groups.set(elements, state),
      );
    },
    confirmPayment: (params) =>
      confirm(params).catch(() => ({ error: railError('ERR_5000', 'Unexpected error during confirm.') })),
    retrievePayment,
  };
}
