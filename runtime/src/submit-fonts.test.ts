import { beforeEach, describe, expect, test, vi } from 'vitest';
import { createRail } from './rail';
import { CLIENT_SECRET, PUBLISHABLE_KEY, disableIframeLoading, fakeEnv } from './test-utils';

beforeEach(() => {
  disableIframeLoading();
});

function mountIn(html: string) {
  document.body.innerHTML = html;
  const fake = fakeEnv();
  const rail = createRail(PUBLISHABLE_KEY, undefined, fake.env);
  const elements = rail.elements({ clientSecret: CLIENT_SECRET });
  const element = elements.create('payment').mount('#payment');
  return { ...fake, element };
}

describe('Enter in the frame (submit)', () => {
  test('emits submit and submits the enclosing form through its default button', () => {
    const { element, connections } = mountIn('<form id="f"><div id="payment"></div><button id="pay">Pay</button></form>');
    const form = document.getElementById('f') as HTMLFormElement;
    const submitted = vi.fn((event: SubmitEvent) => event.preventDefault());
    form.addEventListener('submit', submitted);
    const requestSubmit = vi.spyOn(form, 'requestSubmit');
    const onSubmit = vi.fn();
    element.on('submit', onSubmit);
    connections[0]!.emit({ type: 'submit' });
    expect(onSubmit).toHaveBeenCalledWith({ elementType: 'payment' });
    expect(requestSubmit).toHaveBeenCalledWith(document.getElementById('pay'));
  });

  test('does not submit when the default button is disabled, like a native input', () => {
    const { connections } = mountIn('<form id="f"><div id="payment"></div><button id="pay" disabled>Pay</button></form>');
    const requestSubmit = vi.spyOn(document.getElementById('f') as HTMLFormElement, 'requestSubmit');
    connections[0]!.emit({ type: 'submit' });
    expect(requestSubmit).not.toHaveBeenCalled();
  });

  test('without a form only the element event fires', () => {
    const { element, connections } = mountIn('<div id="payment"></div>');
    const onSubmit = vi.fn();
    element.on('submit', onSubmit);
    connections[0]!.emit({ type: 'submit' });
    expect(onSubmit).toHaveBeenCalledTimes(1);
  });
});

describe('fonts and loader options', () => {
  function frameConfig(options: object) {
    document.body.innerHTML = '<div id="payment"></div>';
    const rail = createRail(PUBLISHABLE_KEY, undefined, fakeEnv().env);
    rail.elements({ clientSecret: CLIENT_SECRET, ...options }).create('payment').mount('#payment');
    const iframe = document.querySelector('iframe')!;
    return JSON.parse(new URLSearchParams(new URL(iframe.src).hash.slice(1)).get('config')!);
  }

  test('travel to the frame in its config, keeping only known font fields', () => {
    const config = frameConfig({
      loader: 'never',
      fonts: [{ cssSrc: 'https://fonts.example/css?family=Inter' }, { family: 'Brand', src: 'url(https://cdn.example/b.woff2)', weight: '600', evil: 'x' }],
    });
    expect(config.loader).toBe('never');
    expect(config.fonts).toEqual([{ cssSrc: 'https://fonts.example/css?family=Inter' }, { family: 'Brand', src: 'url(https://cdn.example/b.woff2)', weight: '600' }]);
  });

  test.each([
    [{ loader: 'sometimes' }, /loader to be one of auto, always, never/],
    [{ fonts: 'Inter' }, /fonts to be an array/],
    [{ fonts: [{ family: 'x' }] }, /fonts\[0\] to be \{cssSrc\} or \{family, src\}/],
  ])('refuses %j with an expected-vs-received message', (options, message) => {
    const rail = createRail(PUBLISHABLE_KEY, undefined, fakeEnv().env);
    expect(() => rail.elements({ clientSecret: CLIENT_SECRET, ...(options as object) })).toThrow(message);
  });
});
