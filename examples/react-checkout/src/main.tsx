import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, type CheckoutConfig } from './App';

/**
 * Where the page gets Rail from: the URL (`?js_url=&pk=&client_secret=`, what the Playwright fixture passes to the
 * built app), else `vite dev` with @rail/vite (import.meta.env and its payment endpoint). In production your backend
 * would render these three values into the page.
 */
async function checkoutConfig(): Promise<CheckoutConfig | string> {
  const query = new URLSearchParams(location.search);
  const jsUrl = query.get('js_url') ?? import.meta.env.VITE_RAIL_JS_URL;
  const publishableKey = query.get('pk') ?? import.meta.env.VITE_RAIL_PUBLISHABLE_KEY;
  let clientSecret = query.get('client_secret');
  if (!jsUrl || !publishableKey) return 'Open this page with ?js_url=...&pk=...&client_secret=..., or run it with vite dev.';
  if (!clientSecret && import.meta.env.VITE_RAIL_PAYMENT_ENDPOINT) {
    const created = await fetch(import.meta.env.VITE_RAIL_PAYMENT_ENDPOINT, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ amount: 10000, currency: 'INR' }) });
    clientSecret = ((await created.json()) as { client_secret?: string }).client_secret ?? null;
  }
  if (!clientSecret) return 'No payment to show: pass ?client_secret=...';
  return { jsUrl, publishableKey, clientSecret };
}

void checkoutConfig().then((config) =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>{typeof config === 'string' ? <p role="alert">{config}</p> : <App config={config} />}</StrictMode>,
  ),
);
