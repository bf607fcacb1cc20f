import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, test, type Page } from '@playwright/test';
import { TEST_CARDS, accountOffers, fillCard, railFrame, waitForPaymentStatus } from '@rail/playwright';
import { SERVER_LOG } from '../playwright.config';
import { API, pay, shown } from './support';

/** Card payments need the simulated card acquirer, which e2e/account-config.json switches on for the e2e server. */
test.beforeEach(async () => {
  expect(await accountOffers(API, 'card'), 'the e2e server offers card (e2e/account-config.json)').toBe(true);
});

const CARD = { expiry: '12/34', cvc: '123', name: 'Asha Rao' };
const CHECKOUT = '/checkout.html?currency=EUR&amount=2500';

test('a card payment with 4242 4242 4242 4242 succeeds', async ({ page }) => {
  await page.goto(CHECKOUT);
  await fillCard(page, { number: TEST_CARDS.success, ...CARD });
  await expect(railFrame(page).locator('#rail-card-brand')).toHaveText('Visa');
  const { text, paymentId } = await pay(page);
  expect(text).toBe('succeeded');
  await waitForPaymentStatus(API, paymentId, 'succeeded');
});

test('a declined card resolves a failed payment and says so in the frame', async ({ page }) => {
  await page.goto(CHECKOUT);
  await fillCard(page, { number: TEST_CARDS.declined, ...CARD });
  const { text, paymentId } = await pay(page);
  expect(text).toBe(shown('failed'));
  await expect(railFrame(page).locator('#rail-notice')).toContainText('The payment failed.');
  await waitForPaymentStatus(API, paymentId, 'failed');
});

test('an invalid card number is refused in the frame before any request, with the field marked invalid', async ({ page }) => {
  await page.goto(CHECKOUT);
  await fillCard(page, { number: '4242424242424241', ...CARD });
  const number = railFrame(page).getByLabel('Card number', { exact: true });
  await expect(number).toHaveAttribute('aria-invalid', 'true');
  expect((await pay(page)).text).toBe('error:ERR_6005');
  await expect(number).toBeFocused();
});

test('keyboard only: Tab through the card fields, Enter pays', async ({ page }) => {
  await page.goto(CHECKOUT);
  const frame = railFrame(page);
  await expect(page.locator('#pay')).toBeEnabled();
  await page.locator('body').focus();
  // Tab until the card number has focus; the method selector (when shown) has Card first and checked.
  const activeId = () => frame.locator('body').evaluate(() => document.activeElement?.id ?? '');
  for (let i = 0; i < 12 && (await activeId()) !== 'rail-card-number'; i++) await page.keyboard.press('Tab');
  await expect(frame.getByLabel('Card number', { exact: true })).toBeFocused();
  await page.keyboard.type(TEST_CARDS.success);
  await page.keyboard.press('Tab');
  await page.keyboard.type('1234');
  await page.keyboard.press('Tab');
  await page.keyboard.type('123');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Asha Rao');
  await page.keyboard.press('Enter');
  await expect(page.locator('#result')).toHaveText('succeeded', { timeout: 20_000 });
});

/** Every text value of every table, except the vault's ciphertext columns. */
function databaseText(): string {
  const db = new Database(join(process.env.RAIL_E2E_DATA_DIR!, 'rail.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    const chunks: string[] = [];
    for (const { name } of tables) {
      const columns = (db.prepare(`PRAGMA table_info("${name}")`).all() as { name: string }[])
        .map((column) => column.name)
        .filter((column) => !/ciphertext/i.test(column));
      for (const row of db.prepare(`SELECT ${columns.map((column) => `"${column}"`).join(', ')} FROM "${name}"`).raw().all() as unknown[][]) {
        for (const value of row) if (typeof value === 'string') chunks.push(value);
      }
    }
    return chunks.join('\n');
  } finally {
    db.close();
  }
}

async function payWithRecordedConsole(page: Page, number: string): Promise<string[]> {
  const consoleLines: string[] = [];
  page.on('console', (message) => consoleLines.push(message.text()));
  page.on('pageerror', (error) => consoleLines.push(String(error)));
  await page.goto(CHECKOUT);
  await fillCard(page, { number, ...CARD });
  expect((await pay(page)).text).toBe('succeeded');
  return consoleLines;
}

test('the card number is nowhere outside the frame and the vault: page DOM, messages, console, server log, database', async ({ page }) => {
  const number = TEST_CARDS.success;
  const spaced = number.replace(/(\d{4})(?=\d)/g, '$1 ');
  const consoleLines = await payWithRecordedConsole(page, number);
  const leaks = (text: string) => text.includes(number) || text.includes(spaced);

  // The merchant page: its DOM (the iframe is a separate document) and every message it received.
  expect(leaks(await page.content())).toBe(false);
  const messages: { data: string }[] = await page.evaluate(() => (window as never as { __railMessages: [] }).__railMessages);
  expect(messages.length).toBeGreaterThan(0);
  for (const message of messages) expect(message.data).not.toMatch(/\d{13,19}/);
  // Console output of the page and its frames.
  for (const line of consoleLines) expect(leaks(line)).toBe(false);
  // The API server's log (stdout and stderr, written by the e2e config), and every text column of the database.
  const log = readFileSync(SERVER_LOG, 'utf8');
  expect(log.length).toBeGreaterThan(0);
  expect(leaks(log)).toBe(false);
  const stored = databaseText();
  expect(stored).toContain('pay_');
  expect(leaks(stored)).toBe(false);
});
