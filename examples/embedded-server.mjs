// Starts an embedded Rail, creates a payment with the secret key, confirms it with the publishable key (the
// simulator approves success@upi at once) and stops. Run: node examples/embedded-server.mjs (after npm run build).
import { startRail } from '@rail/server';

const rail = await startRail();
console.log(`Rail at ${rail.baseUrl} (runtime ${rail.jsUrl}/v1/)`);
const post = async (path, key, body) =>
  (await fetch(`${rail.baseUrl}${path}`, { method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();

const payment = await post('/payments', rail.secretKey, { amount: 10000, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } });
const confirmed = await post(`/payments/${payment.payment_id}/confirm`, rail.publishableKey, { client_secret: payment.client_secret });
console.log(`${confirmed.payment_id}: ${confirmed.status}`);
await rail.stop();
if (confirmed.status !== 'succeeded') process.exit(1);
