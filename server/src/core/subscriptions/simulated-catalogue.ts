/**
 * The simulated billing processor's catalogue (test mode): plans with their item prices, addons and coupons, fixed
 * so tests and walk-throughs can name them (docs/capabilities.md lists them).
 */
import type { Currency } from '../../../../protocol/currency';

export interface CatalogueItemPrice {
  itemPriceId: string;
  itemId: string;
  amount: number;
  currency: Currency;
  /** The billing period in days (30: monthly, 365: yearly). */
  periodDays: number;
}

export interface CatalogueItem {
  itemId: string;
  name: string;
  itemType: 'plan' | 'addon';
  description: string;
  prices: readonly CatalogueItemPrice[];
}

const price = (itemPriceId: string, itemId: string, amount: number, currency: Currency, periodDays: number): CatalogueItemPrice => ({
  itemPriceId,
  itemId,
  amount,
  currency,
  periodDays,
});

export const SIMULATED_CATALOGUE: readonly CatalogueItem[] = [
  {
    itemId: 'plan_basic',
    name: 'Basic',
    itemType: 'plan',
    description: 'Basic plan',
    prices: [price('price_basic_monthly', 'plan_basic', 19_900, 'INR', 30), price('price_basic_yearly', 'plan_basic', 199_000, 'INR', 365), price('price_basic_monthly_usd', 'plan_basic', 999, 'USD', 30)],
  },
  {
    itemId: 'plan_pro',
    name: 'Pro',
    itemType: 'plan',
    description: 'Pro plan',
    prices: [price('price_pro_monthly', 'plan_pro', 49_900, 'INR', 30), price('price_pro_monthly_usd', 'plan_pro', 2_499, 'USD', 30)],
  },
  { itemId: 'addon_seat', name: 'Extra seat', itemType: 'addon', description: 'One more seat', prices: [price('price_seat_monthly', 'addon_seat', 9_900, 'INR', 30)] },
];

/** Coupons: percent off the first invoice. */
export const SIMULATED_COUPONS: Readonly<Record<string, number>> = { WELCOME10: 10 };

export function findItemPrice(itemPriceId: string): CatalogueItemPrice | undefined {
  for (const item of SIMULATED_CATALOGUE) {
    const found = item.prices.find((candidate) => candidate.itemPriceId === itemPriceId);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function findPlan(planId: string): CatalogueItem | undefined {
  return SIMULATED_CATALOGUE.find((item) => item.itemId === planId && item.itemType === 'plan');
}

/** The first invoice: the price less the coupon's percentage, rounded down to the minor unit. */
export function firstInvoiceAmount(price: CatalogueItemPrice, couponCode: string | null): { amount: number; discount: number } {
  const percent = couponCode === null ? 0 : (SIMULATED_COUPONS[couponCode] ?? 0);
  const discount = Math.floor((price.amount * percent) / 100);
  return { amount: price.amount - discount, discount };
}
