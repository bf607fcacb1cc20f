/**
 * TEST SIMULATOR PAGES on the API listener: the 3DS challenge of the card simulator, the hosted page of the
 * crypto simulator, the approval page of UPI intent / QR requests and the payer of bank transfers / mobile money.
 * Plain HTML with no script and no external asset (CSP default-src 'none'); the buttons are form POSTs. After the answer the browser goes to the payment's return_url with ?payment_id=...&status=...
 * (303), or sees a short result page when the payment has no return_url.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { formatAmount } from '../../../../../protocol/currency';
import type { CoreDeps } from '../../../core/shared/deps';
import { ApiError } from '../../../core/shared/errors';
import { findSimulatorPayment, resolveSimulatorAction, type SimulatorActionInput } from '../../../core/payments/resolve-simulator-action';
import type { PaymentRecord } from '../../../storage/payments/records';
import { type AppEnv, coreDeps } from '../../env';
import { escapeHtml, layout, securityHeaders } from './page';

const PAGES = {
  '3ds': { rail: 'card', title: 'Test 3-D Secure challenge', complete: 'Complete authentication', fail: 'Fail authentication' },
  crypto: { rail: 'crypto', title: 'Test crypto payment', complete: 'Pay', fail: 'Expire' },
  upi: { rail: 'upi', title: 'Test UPI payment request', complete: 'Approve', fail: 'Decline' },
  bank_transfer: { rail: 'bank_transfer', title: 'Test bank transfer / mobile money payment', complete: 'Receive payment', fail: 'Fail payment' },
} as const;
type PageKind = keyof typeof PAGES;

function describe(payment: PaymentRecord): string {
  const card = payment.paymentMethodData?.card?.['last4'];
  const lines = [`<p>Payment <code>${escapeHtml(payment.paymentId)}</code>: ${escapeHtml(formatAmount(payment.amount, payment.currency))}</p>`];
  if (typeof card === 'string') lines.push(`<p>Card ending ${escapeHtml(card)}</p>`);
  const next = payment.nextAction;
  if (next?.type === 'crypto_payment_information') {
    lines.push(
      `<p>Send <strong>${escapeHtml(next.pay_amount)} ${escapeHtml(next.pay_currency)}</strong> on ${escapeHtml(next.network)} to</p>`,
      `<p><code>${escapeHtml(next.wallet_address)}</code></p>`,
    );
  }
  if (next?.type === 'display_bank_transfer_information') {
    const reference = next.bank_transfer_steps_and_charges_details['reference'] ?? next.bank_transfer_steps_and_charges_details['account_reference'];
    const kind = payment.paymentMethod === 'mobile_payment' ? 'Mobile money' : 'Bank transfer';
    if (typeof reference === 'string') lines.push(`<p>${kind} with reference <code>${escapeHtml(reference)}</code></p>`);
  }
  if (payment.rail === 'upi') lines.push(`<p>UPI ${escapeHtml(payment.paymentMethodType ?? 'request')} to <code>rail.simulator@upi</code></p>`);
  return lines.join('\n');
}

/** What a page's posted field may hold: an account id, a challenge, a decision. */
const PAGE_FIELD = /^[\x21-\x7e]{1,200}$/;

function readQuery(c: Context, kind: PageKind): SimulatorActionInput {
  return {
    accountId: c.req.query('account') ?? '',
    paymentId: c.req.param('payment_id') ?? '',
    challenge: c.req.query('challenge') ?? '',
    rail: PAGES[kind].rail,
  };
}

export function registerSimulatorRoutes(app: OpenAPIHono<AppEnv>, deps: CoreDeps, options: { jsOrigin: string }): void {
  for (const kind of Object.keys(PAGES) as PageKind[]) {
    const page = PAGES[kind];

    app.get(`/simulator/${kind}/:payment_id`, async (c) => {
      const input = readQuery(c, kind);
      const payment = await findSimulatorPayment(coreDeps(c, deps), input);
      const form = `<form method="post" action="/simulator/${kind}/${encodeURIComponent(payment.paymentId)}">
<input type="hidden" name="account" value="${escapeHtml(input.accountId)}">
<input type="hidden" name="challenge" value="${escapeHtml(input.challenge)}">
<button type="submit" name="decision" value="complete">${page.complete}</button>
<button type="submit" name="decision" value="fail">${page.fail}</button>
</form>`;
      securityHeaders(c, payment.returnUrl, options.jsOrigin);
      return c.html(layout(page.title, `<h1>${page.title}</h1>\n${describe(payment)}\n${form}`), 200);
    });

    app.post(`/simulator/${kind}/:payment_id`, async (c) => {
      const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      // A posted form is not checked like JSON bodies and URLs (a NUL reached PostgreSQL: ERR_5000). Anything but
      // the visible ASCII of an id or a challenge is a link that does not apply (ERR_4070), as a wrong one is.
      const field = (name: string) => {
        const value = form[name];
        return typeof value === 'string' && PAGE_FIELD.test(value) ? value : '';
      };
      const decision = field('decision');
      if (decision !== 'complete' && decision !== 'fail') {
        throw new ApiError('ERR_2003', 'decision must be complete or fail.', { fieldName: 'decision' });
      }
      const payment = await resolveSimulatorAction(coreDeps(c, deps), {
        accountId: field('account'),
        paymentId: c.req.param('payment_id'),
        challenge: field('challenge'),
        rail: page.rail,
        decision,
      });
      securityHeaders(c, payment.returnUrl, options.jsOrigin);
      if (payment.returnUrl !== null) {
        const target = new URL(payment.returnUrl);
        target.searchParams.set('payment_id', payment.paymentId);
        target.searchParams.set('status', payment.status);
        return c.redirect(target.toString(), 303);
      }
      return c.html(layout(page.title, `<h1>${page.title}</h1>\n<p>Payment <code>${escapeHtml(payment.paymentId)}</code> is now <strong>${escapeHtml(payment.status)}</strong>. You can close this window.</p>`), 200);
    });
  }
}
