import { defineConfig } from 'vitest/config';

// `npm run test:reliability`: the kill cycles and other long proofs (docs/reliability.md), kept out of test:unit.
export default defineConfig({
  test: {
    name: 'reliability',
    environment: 'node',
    include: ['server/**/*.reliability.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
