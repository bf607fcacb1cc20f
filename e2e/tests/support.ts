import { expect, type Page } from '@playwright/test';
import { E2E } from '../env';
import type { ApiAccess } from '@rail/playwright';

export const API: ApiAccess = { apiBaseUrl: E2E.baseUrl, secretKey: E2E.secretKey };

/** Presses the fixture's Pay button and waits for its result (a status or "error:ERR_...") and payment id. */
export async function pay(page: Page, timeout = 20_000): Promise<{ text: string; paymentId: string }> {
  const result = page.locator('#result');
  await expect(page.locator('#pay')).toBeEnabled();
  await page.locator('#pay').click();
  await expect(result).not.toBeEmpty({ timeout });
  return { text: (await result.textContent()) ?? '', paymentId: (await result.getAttribute('data-payment-id')) ?? '' };
}

/**
 * What the fixture page shows for a payment that ended in `status`: the status itself for succeeded (and other
 * successful outcomes), `error:payment_failed:<status>` for one confirmPayment resolves as an error.
 */
export function shown(status: string): string {
  return ['failed', 'cancelled', 'cancelled_post_capture'].includes(status) ? `error:payment_failed:${status}` : status;
}

/** The element events the fixture recorded (checkout.html). */
export async function elementEvents(page: Page): Promise<{ type: string; event: string }[]> {
  return page.evaluate(() => (window as never as { __railEvents: { type: string; event: string }[] }).__railEvents);
}
