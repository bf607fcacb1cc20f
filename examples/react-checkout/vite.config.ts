import { defineConfig } from 'vite';
import { rail } from '@rail/vite';

// `vite` (dev): rail() starts an embedded Rail test server and gives the page its keys and a payment endpoint.
// `vite build` / `vite preview`: the page reads js_url, publishable key and client secret from its URL instead.
export default defineConfig({
  plugins: [rail()],
  esbuild: { jsx: 'automatic', jsxImportSource: 'react' },
  server: { host: '127.0.0.1', port: 4318, strictPort: true },
  preview: { host: '127.0.0.1', port: 4317, strictPort: true },
});
