/**
 * How often a browser's reads may make Rail ask a rail about one payment. Anyone holding a merchant's publishable
 * key and a payment's client_secret may read it as often as the rate limits allow (600 reads a minute per address,
 * docs/security.md), and a read of a waiting payment, or any read with force_sync=true, asks the payment's rail,
 * whose status calls a real provider limits per merchant. So a client read asks about a payment at most once per
 * CLIENT_RAIL_SYNC_INTERVAL_MS in this process, and not while an earlier ask about it is out; the other reads answer
 * what is stored. The frame polls a waiting payment every 2 s, so it always asks. Reads with a secret key, and the
 * sweep, are the merchant's and Rail's own and always ask.
 */
import type { Scope } from '../../kernel/store-types';

export const CLIENT_RAIL_SYNC_INTERVAL_MS = 1_000;

/** Payments remembered before the old entries are dropped (one ask a second per payment needs few). */
const MOST_REMEMBERED = 10_000;

export class ClientRailSyncs {
  /** When a client read last asked about each payment (account, mode, id), and whether that ask is still out. */
  readonly #asks = new Map<string, { askedAtMs: number; out: boolean }>();

  /**
   * Whether a client read may ask the rail about `payment` now; when it may, the ask is recorded and `done` must be
   * called once it has its answer (or failed). A payment id is unique only within its account and mode, and a
   * merchant may choose it: keyed by all three, so that nobody's reads hold back another account's payment.
   */
  tryAsk(payment: Scope & { paymentId: string }, nowMs: number): { done: () => void } | undefined {
    const key = `${payment.accountId} ${payment.mode} ${payment.paymentId}`;
    const last = this.#asks.get(key);
    if (last !== undefined && (last.out || nowMs - last.askedAtMs < CLIENT_RAIL_SYNC_INTERVAL_MS)) return undefined;
    if (last === undefined && this.#asks.size >= MOST_REMEMBERED) this.#forgetSettled(nowMs);
    const ask = { askedAtMs: nowMs, out: true };
    this.#asks.set(key, ask);
    return { done: () => (ask.out = false) };
  }

  #forgetSettled(nowMs: number): void {
    for (const [paymentId, ask] of this.#asks) {
      if (!ask.out && nowMs - ask.askedAtMs >= CLIENT_RAIL_SYNC_INTERVAL_MS) this.#asks.delete(paymentId);
    }
    // Still full of asks made within the interval: forget the oldest half rather than grow without bound.
    let drop = this.#asks.size >= MOST_REMEMBERED ? Math.floor(this.#asks.size / 2) : 0;
    for (const paymentId of this.#asks.keys()) {
      if (drop-- <= 0) break;
      this.#asks.delete(paymentId);
    }
  }
}
