/** @rail/playwright: the checkout-test helpers (helpers.ts) and the `test` fixture with an embedded Rail (fixture.ts). */
export * from './helpers.js';
export { createPayment, expect, test, type CreatedPayment, type RailFixture, type RailWorkerFixtures } from './fixture.js';
