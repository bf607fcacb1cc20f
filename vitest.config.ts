import { defineConfig } from 'vitest/config';
import preact from '@preact/preset-vite';

// Three projects: server, protocol and the Node packages run in Node; the browser rooms (loader, runtime, frame)
// run in happy-dom with Preact; the React bindings in happy-dom with React.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['protocol/**/*.test.ts', 'server/**/*.test.ts', 'scripts/**/*.test.ts', 'packages/server/**/*.test.ts', 'packages/vite/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [preact()],
        test: {
          name: 'dom',
          environment: 'happy-dom',
          include: ['loader/**/*.test.{ts,tsx}', 'runtime/**/*.test.{ts,tsx}', 'frame/**/*.test.{ts,tsx}'],
        },
      },
      // The React bindings run against real React (the dom project's Preact preset would alias it to preact/compat).
      {
        test: {
          name: 'react',
          environment: 'happy-dom',
          include: ['packages/react/**/*.test.{ts,tsx}'],
        },
      },
    ],
  },
});
