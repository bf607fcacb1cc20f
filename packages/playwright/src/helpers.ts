/**
 * Playwright helpers for checkout tests of pages that embed the Rail payment element. They drive the hosted
 * frame the way a customer does (typing, Tab, Enter), wait on what the customer sees, and read payments with the
 * merchant's secret key. Published as @rail/playwright (with the `test` fixture of fixture.ts); this file depends
 * on @playwright/test only.
 *
 * @example
 * import { fillCard, railFrame, waitForPaymentStatus, TEST_CARDS } from '@rail/playwright';
 * await page.goto('/checkout');
 * await fillCard(page, { number: TEST_CARDS.success, expiry: '12/34', cvc: '123', name: 'Asha Rao' });
 * await page.getByRole('button', { name: 'Pay' }).click();
 * await waitForPaymentStatus({ apiBaseUrl, secretKey }, paymentId, 'succeeded');
 */
import { expect, type BrowserContext, type FrameLocator, type Locator, type Page } from '@playwright/test';

/** Card numbers the test simulator answers deterministically (docs/simulator.md). */
export const TEST_CARDS = {
  success: '4242424242424242',
  declined: '4000000000000002',
  threeDsChallenge: '4000003800000446',
  /** 3DS without a challenge (challenged when the payment has force_3ds_challenge). */
  threeDsFrictionless: '4000000000003055',
  /** 3DS authentication the issuer rejects: failed, authentication_failed. */
  threeDsRejected: '4000008400001629',
} as const;

/** The test wallets of the simulated card acquirer, by the name of their tab in the frame (docs/simulator.md). */
export const TEST_WALLETS = { google_pay: 'Google Pay (test)', apple_pay: 'Apple Pay (test)', paypal: 'PayPal (test)' } as const;

/** VPAs the UPI collect simulator answers deterministically (docs/simulator.md). */
export const TEST_VPAS = {
  success: 'success@upi',
  failure: 'failure@upi',
  pending: 'pending@upi',
  pendingFailure: 'pending-failure@upi',
} as const;

/** Mobile money numbers: the simulator rejects a number ending in 0002 about 30 s after confirm (docs/simulator.md). */
export const TEST_MSISDNS = {
  success: '+254700000001',
  failure: '+254700000002',
} as const;

/** A payment element's iframe (protocol/frame-url.ts): the frame document, with or without its query. */
const RAIL_FRAME_SELECTOR = 'iframe[src*="/frame/#"], iframe[src*="/frame/?"]';

export interface FrameOptions {
  /** Which payment element on the page (0 = the first, in document order). */
  index?: number;
}

/**
 * The hosted frame of the nth payment element on the page (matched by its URL, whatever its title): `/frame/#...`, or
 * `/frame/?connect=...#...` when the element declares the origins it fetches from (customBackendUrl, font stylesheets).
 */
export function railFrame(page: Page, { index = 0 }: FrameOptions = {}): FrameLocator {
  return page.locator(RAIL_FRAME_SELECTOR).nth(index).contentFrame();
}

/**
 * Waits until the element has rendered its methods (the frame's form is interactive). Not for the page's `ready`
 * event: the frame sends it after that render, and the runtime records nothing on the page a test could wait for, so
 * the page's `ready` handlers may run just after this returns (README: wait for what the handler does).
 */
export async function waitForRailReady(page: Page, options: FrameOptions = {}): Promise<FrameLocator> {
  const frame = railFrame(page, options);
  await expect(frame.locator('.Root[aria-busy="false"]')).toBeVisible({ timeout: 15_000 });
  return frame;
}

/**
 * Picks a method in the element's selector ("Card", "UPI", "Crypto", "Bank transfer", ... in the element's
 * locale). Does nothing when the element offers a single method (it shows no selector then).
 */
export async function selectPaymentMethod(page: Page, name: string | RegExp, options: FrameOptions = {}): Promise<void> {
  const frame = await waitForRailReady(page, options);
  const tabs = frame.getByRole('group');
  if ((await tabs.count()) === 0) return;
  await frame.getByRole('radio', { name, exact: typeof name === 'string' }).check();
}

/** Types like a customer: key by key, so the frame's as-you-type formatting runs. */
async function typeInto(field: Locator, value: string): Promise<void> {
  await field.click();
  await field.clear();
  await field.pressSequentially(value);
}

export interface CardDetails {
  number: string;
  /** "MM/YY", "MM / YY" or "MMYY". */
  expiry: string;
  cvc: string;
  name: string;
}

/** Selects the card method (when there is a choice) and types the card into the frame's fields. */
export async function fillCard(page: Page, card: CardDetails, options: FrameOptions & { labels?: Partial<Record<'number' | 'expiry' | 'cvc' | 'name', string>> } = {}): Promise<void> {
  await selectPaymentMethod(page, 'Card', options);
  const frame = railFrame(page, options);
  const labels = { number: 'Card number', expiry: 'Expiry date', cvc: 'Security code', name: 'Name on card', ...options.labels };
  await typeInto(frame.getByLabel(labels.number, { exact: true }), card.number);
  await typeInto(frame.getByLabel(labels.expiry, { exact: true }), card.expiry.replace(/\D/g, ''));
  await typeInto(frame.getByLabel(labels.cvc, { exact: true }), card.cvc);
  await typeInto(frame.getByLabel(labels.name, { exact: true }), card.name);
}

/** Selects UPI (when there is a choice) and types the VPA. */
export async function fillUpi(page: Page, vpa: string, options: FrameOptions & { label?: string } = {}): Promise<void> {
  await selectPaymentMethod(page, 'UPI', options);
  await typeInto(railFrame(page, options).getByLabel(options.label ?? 'UPI ID', { exact: true }), vpa);
}

/**
 * The customer's approval of a UPI collect request. In test mode the simulator decides from the VPA
 * (`pending@upi` is approved 10 s after confirm) and no UI exists to click; this waits until the frame's wait
 * screen has gone, i.e. the approval has arrived and the frame has seen it. UPI intent and QR requests are
 * answered on the simulator page instead: `answerUpiSimulatorPage`.
 */
export async function approveUpiRequest(page: Page, options: FrameOptions & { timeout?: number } = {}): Promise<void> {
  const frame = railFrame(page, options);
  await expect(frame.locator('.Wait')).toBeVisible();
  await expect(frame.locator('.Wait')).toBeHidden({ timeout: options.timeout ?? 30_000 });
}

/**
 * The simulator approval page of a UPI intent / QR payment (`{base_url}/simulator/upi/{payment_id}?account=...&challenge=...`),
 * read from the payment's next_action (secret key): the QR's qr_code_url, or the `url` parameter of the intent's
 * `upi://pay` link.
 */
export async function upiSimulatorPageUrl(access: ApiAccess, paymentId: string): Promise<string> {
  const payment = await retrievePayment(access, paymentId);
  const next = payment['next_action'] as { type: string; qr_code_url?: string | null; redirect_to_url?: string } | null;
  const url = next?.type === 'qr_code_information' ? next.qr_code_url : next?.type === 'redirect_to_url' ? new URL(next.redirect_to_url ?? '').searchParams.get('url') : null;
  if (!url) throw new Error(`payment ${paymentId} has no UPI simulator page (next_action ${JSON.stringify(next)})`);
  return url;
}

/**
 * The customer's answer to a UPI intent / QR request: opens the simulator approval page in a new page of the
 * browser context and presses Approve or Decline there. The frame sees the result by polling.
 */
export async function answerUpiSimulatorPage(page: Page, access: ApiAccess, paymentId: string, outcome: 'approve' | 'decline'): Promise<void> {
  await answerUpiSimulatorPageAt(page.context(), await upiSimulatorPageUrl(access, paymentId), outcome);
}

/**
 * The same answer given on the approval page at `url` (for example the URL a scanned QR code holds), in a new page
 * of `context`: another browser context plays the customer's phone.
 */
export async function answerUpiSimulatorPageAt(context: BrowserContext, url: string, outcome: 'approve' | 'decline'): Promise<void> {
  const popup = await context.newPage();
  await popup.goto(url);
  await popup.getByRole('button', { name: outcome === 'approve' ? 'Approve' : 'Decline', exact: true }).click();
  await popup.waitForLoadState();
  await popup.close();
}

/**
 * Answers the simulator's 3DS challenge page (the top window was redirected there by `confirmPayment`).
 * The simulator then redirects to return_url?payment_id=...&status=...
 */
export async function completeThreeDsChallenge(page: Page, outcome: 'complete' | 'fail'): Promise<void> {
  const name = outcome === 'complete' ? 'Complete authentication' : 'Fail authentication';
  const button = page.getByRole('button', { name });
  await button.waitFor({ timeout: 15_000 });
  await Promise.all([page.waitForURL((url) => url.searchParams.has('payment_id'), { timeout: 15_000 }), button.click()]);
}

/**
 * Pays with a test wallet in test mode: selects its tab and sets what the simulated wallet answers (the simulator's
 * approved or declined token). The confirm itself is the page's, as with every method.
 */
export async function chooseTestWallet(
  page: Page,
  wallet: keyof typeof TEST_WALLETS,
  answer: 'approved' | 'declined' = 'approved',
  options: FrameOptions = {},
): Promise<void> {
  await selectPaymentMethod(page, TEST_WALLETS[wallet], options);
  await railFrame(page, options).getByLabel('Wallet answer', { exact: true }).selectOption(answer);
}

/** Selects mobile money (when there is a choice) and types the payer's number into the frame. */
export async function fillMobileMoney(page: Page, msisdn: string, options: FrameOptions & { label?: string } = {}): Promise<void> {
  await selectPaymentMethod(page, 'Mobile money', options);
  await typeInto(railFrame(page, options).getByLabel(options.label ?? 'Mobile money number', { exact: true }), msisdn);
}

/**
 * Plays the customer of a bank transfer or mobile money payment: opens the simulator page from the frame's test-mode
 * link and presses "Receive payment" (pay) or "Fail payment" (fail) there. The frame sees the result by polling.
 */
export async function completeBankTransfer(page: Page, outcome: 'pay' | 'fail', options: FrameOptions = {}): Promise<void> {
  const link = railFrame(page, options).getByRole('link', { name: /simulat/i });
  const [popup] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
  await popup.waitForLoadState();
  await popup.getByRole('button', { name: outcome === 'pay' ? 'Receive payment' : 'Fail payment', exact: true }).click();
  await popup.waitForLoadState();
  await popup.close();
}

/** Opens the crypto simulator's hosted page from the frame's link and presses Pay or Expire there. */
export async function completeCryptoPayment(page: Page, outcome: 'pay' | 'expire', options: FrameOptions = {}): Promise<void> {
  const frame = railFrame(page, options);
  const link = frame.getByRole('link', { name: /payment page|page de paiement/i });
  const [popup] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
  await popup.waitForLoadState();
  await popup.getByRole('button', { name: outcome === 'pay' ? /^pay/i : /^expire/i }).click();
  await popup.close();
}

export interface ApiAccess {
  apiBaseUrl: string;
  /** The merchant's secret key (test mode). Never put it in a page; the helpers call the API from Node. */
  secretKey: string;
}

/** GET /payments/{id} with the secret key. */
export async function retrievePayment(access: ApiAccess, paymentId: string): Promise<{ status: string; [field: string]: unknown }> {
  const response = await fetch(`${access.apiBaseUrl}/payments/${encodeURIComponent(paymentId)}`, { headers: { 'api-key': access.secretKey } });
  if (!response.ok) throw new Error(`GET /payments/${paymentId} answered ${response.status}`);
  return response.json();
}

/** Polls the payment (secret key) until it has the status, failing after `timeout` ms. */
export async function waitForPaymentStatus(access: ApiAccess, paymentId: string, status: string, timeout = 20_000): Promise<void> {
  await expect.poll(async () => (await retrievePayment(access, paymentId)).status, { timeout, intervals: [250, 500, 1000] }).toBe(status);
}

/** Whether the account offers a payment method in this mode (e.g. to skip card tests on a server without an acquirer). */
export async function accountOffers(access: ApiAccess, paymentMethod: string): Promise<boolean> {
  const response = await fetch(`${access.apiBaseUrl}/account/payment_methods`, { headers: { 'api-key': access.secretKey } });
  if (!response.ok) return false;
  const body = (await response.json()) as { payment_methods?: { payment_method: string }[] };
  return (body.payment_methods ?? []).some((method) => method.payment_method === paymentMethod);
}
