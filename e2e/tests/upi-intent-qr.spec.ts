import { expect, test, type Browser, type FrameLocator } from '@playwright/test';
import jsQR from 'jsqr';
import { E2E } from '../env';
import { accountOffers, answerUpiSimulatorPage, answerUpiSimulatorPageAt, railFrame, retrievePayment, selectPaymentMethod, upiSimulatorPageUrl, waitForPaymentStatus } from '@rail/playwright';
import { API, shown } from './support';

/**
 * UPI intent and UPI QR (INR), each approved and declined: the frame shows the intent / QR screen, the customer
 * answers on the simulator approval page, the frame follows. For QR the customer's path is the real one: the QR
 * image the frame shows is read back from its pixels, and the page it encodes is opened and answered.
 */

const TYPES = [
  { type: 'upi_intent', tab: 'UPI app', screen: 'intent-screen' },
  { type: 'upi_qr', tab: 'UPI QR', screen: 'qr-screen' },
] as const;
const OUTCOMES = [
  { outcome: 'approve', expected: 'succeeded' },
  { outcome: 'decline', expected: 'failed' },
] as const;

test.beforeEach(async () => {
  expect(await accountOffers(API, 'upi'), 'the e2e server offers upi (e2e/account-config.json)').toBe(true);
});

/**
 * What a phone camera reads from the frame's QR image: the <img> drawn onto a canvas inside the frame at the size the
 * customer sees, its pixels decoded here. Undefined when no QR code is found.
 */
async function scanQrImage(frame: FrameLocator): Promise<string | undefined> {
  const image = frame.getByRole('img', { name: /QR code/ });
  await expect(image).toBeVisible();
  await expect(image).toHaveAttribute('src', /^data:image\/svg\+xml;base64,/);
  const { width, height, rgba } = await image.evaluate(async (img: HTMLImageElement) => {
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width;
    canvas.height = img.height;
    const context = canvas.getContext('2d')!;
    context.drawImage(img, 0, 0, canvas.width, canvas.height);
    return { width: canvas.width, height: canvas.height, rgba: Array.from(context.getImageData(0, 0, canvas.width, canvas.height).data) };
  });
  expect([width, height]).toEqual([200, 200]);
  return jsQR(Uint8ClampedArray.from(rgba), width, height)?.data;
}

/** The customer's phone: another browser context (no cookie or storage of the checkout) opens the page and answers. */
async function answerOnPhone(browser: Browser, url: string, outcome: 'approve' | 'decline'): Promise<void> {
  const phone = await browser.newContext();
  try {
    await answerUpiSimulatorPageAt(phone, url, outcome);
  } finally {
    await phone.close();
  }
}

for (const { type, tab, screen } of TYPES) {
  for (const { outcome, expected } of OUTCOMES) {
    const what = type === 'upi_intent' ? 'the intent screen' : 'the QR screen, whose QR code opens the approval page';
    test(`${type}: the frame shows ${what}; ${outcome} there ends ${expected}`, async ({ page, browser }) => {
      test.setTimeout(60_000);
      await page.goto('/checkout.html');
      await selectPaymentMethod(page, tab);
      await page.locator('#pay').click();
      const frame = railFrame(page);
      await expect(frame.getByTestId(screen)).toBeVisible({ timeout: 15_000 });
      const paymentId: string = await page.evaluate(() => (window as never as { __rail: { paymentId: string } }).__rail.paymentId);
      const payment = await retrievePayment(API, paymentId);
      expect(payment).toMatchObject({ status: 'requires_customer_action', payment_method_type: type });
      const pageUrl = await upiSimulatorPageUrl(API, paymentId);
      expect(pageUrl.startsWith(`${E2E.baseUrl}/simulator/upi/${paymentId}?`)).toBe(true);
      const link = frame.getByTestId(screen).getByRole('link');
      if (type === 'upi_intent') {
        await expect(link).toHaveAttribute('href', /^upi:\/\/pay\?pa=rail\.simulator%40upi&/);
        await answerUpiSimulatorPage(page, API, paymentId, outcome);
      } else {
        // The link to the same page stays under the image, for a customer who cannot scan.
        await expect(link).toHaveAttribute('href', pageUrl);
        const scanned = await scanQrImage(frame);
        expect(scanned).toBe(pageUrl);
        await answerOnPhone(browser, scanned!, outcome);
      }
      await expect(page.locator('#result')).toHaveText(shown(expected), { timeout: 30_000 });
      expect(await page.locator('#result').getAttribute('data-payment-id')).toBe(paymentId);
      await waitForPaymentStatus(API, paymentId, expected);
    });
  }
}
