import { useMemo, useState, type FormEvent } from 'react';
import { loadRail } from '@rail/loader';
import { Elements, PaymentElement, useElements, useRail, type ChangeEvent } from '@rail/react';

export interface CheckoutConfig {
  jsUrl: string;
  publishableKey: string;
  clientSecret: string;
}

export function App({ config }: { config: CheckoutConfig }) {
  // One runtime load per js_url and key (the loader shares concurrent loads).
  const railPromise = useMemo(() => loadRail(config.publishableKey, { scriptSrc: `${config.jsUrl}/v1/` }), [config.jsUrl, config.publishableKey]);
  return (
    <Elements rail={railPromise} options={{ clientSecret: config.clientSecret }}>
      <PayForm />
    </Elements>
  );
}

function PayForm() {
  const rail = useRail();
  const elements = useElements();
  const [ready, setReady] = useState(false);
  const [complete, setComplete] = useState(false);
  const [result, setResult] = useState('');

  async function pay(event: FormEvent) {
    event.preventDefault();
    if (!rail || !elements) return;
    const { payment, error } = await rail.confirmPayment({ elements, confirmParams: { return_url: location.href }, redirect: 'if_required' });
    setResult(error ? `error:${error.code}` : payment.status);
  }

  return (
    <form onSubmit={pay}>
      <PaymentElement id="payment" onReady={() => setReady(true)} onChange={(event: ChangeEvent) => setComplete(event.complete)} />
      <button type="submit" disabled={!ready}>
        Pay
      </button>
      <p data-testid="complete">{complete ? 'complete' : 'incomplete'}</p>
      <output data-testid="result">{result}</output>
    </form>
  );
}
