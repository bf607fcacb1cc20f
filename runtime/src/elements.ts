import type { FrameConfig, FrameConfigUpdate } from '../../protocol/frame-messages';
import type { Elements, ElementsOptions, ElementsUpdateOptions, PaymentElementOptions } from '../../loader/src/types';
import { IntegrationError, describeValue } from './errors';
import type { RuntimeEnv } from './env';
import { createPaymentElement, type PaymentElementHandle } from './payment-element';
import { CLIENT_SECRET_PATTERN } from '../../protocol/ids';

const LOCALES = ['en', 'fr', 'hi', 'es'];

/** The runtime's side of one elements group: its config and its payment element, if any. */
export interface ElementsState {
  config: FrameConfig;
  payment: PaymentElementHandle | null;
}

export function assertClientSecret(value: unknown): asserts value is string {
  if (typeof value !== 'string' || !CLIENT_SECRET_PATTERN.test(value)) {
    throw new IntegrationError('ERR_6002', `Expected clientSecret to look like "pay_..._secret_...", got ${describeValue(value)}.`);
  }
}

function checkOptions(options: ElementsUpdateOptions): FrameConfigUpdate {
  const update: FrameConfigUpdate = {};
  if (options.clientSecret !== undefined) {
    assertClientSecret(options.clientSecret);
    update.clientSecret = options.clientSecret;
  }
  if (options.locale !== undefined) {
    if (!LOCALES.includes(options.locale)) {
      throw new IntegrationError('ERR_6002', `Expected locale to be one of ${LOCALES.join(', ')}, got ${describeValue(options.locale)}.`);
    }
    update.locale = options.locale;
  }
  if (options.appearance !== undefined) {
    if (typeof options.appearance !== 'object' || options.appearance === null) {
      throw new IntegrationError('ERR_6002', `Expected appearance to be an object, got ${describeValue(options.appearance)}.`);
    }
    // A copy that survives structured cloning, and that later changes to the merchant's object cannot reach.
    try {
      update.appearance = JSON.parse(JSON.stringify(options.appearance));
    } catch {
      throw new IntegrationError('ERR_6002', 'Expected appearance to be plain data (strings, numbers, objects), got an object JSON cannot copy (a cycle or a BigInt).');
    }
  }
  return update;
}

const LOADERS = ['auto', 'always', 'never'];
const MAX_FONTS = 10;

/** fonts and loader: set when the elements group is created (they shape the frame's first paint). */
function checkCreateOptions(options: ElementsOptions): Pick<FrameConfig, 'fonts' | 'loader'> {
  const result: Pick<FrameConfig, 'fonts' | 'loader'> = {};
  if (options.loader !== undefined) {
    if (!LOADERS.includes(options.loader)) {
      throw new IntegrationError('ERR_6002', `Expected loader to be one of ${LOADERS.join(', ')}, got ${describeValue(options.loader)}.`);
    }
    result.loader = options.loader;
  }
  if (options.fonts !== undefined) {
    const fonts: unknown = options.fonts;
    if (!Array.isArray(fonts) || fonts.length > MAX_FONTS) {
      throw new IntegrationError('ERR_6002', `Expected fonts to be an array of at most ${MAX_FONTS} font sources, got ${describeValue(fonts)}.`);
    }
    result.fonts = fonts.map((font: unknown, index) => {
      const source = (font ?? {}) as Record<string, unknown>;
      if (typeof source.cssSrc === 'string') return { cssSrc: source.cssSrc };
      if (typeof source.family === 'string' && typeof source.src === 'string') {
        const face: { family: string; src: string; weight?: string; style?: string; display?: string; unicodeRange?: string } = { family: source.family, src: source.src };
        for (const key of ['weight', 'style', 'display', 'unicodeRange'] as const) {
          if (typeof source[key] === 'string') face[key] = source[key] as string;
        }
        return face;
      }
      throw new IntegrationError('ERR_6002', `Expected fonts[${index}] to be {cssSrc} or {family, src}, got ${describeValue(font)}.`);
    });
  }
  return result;
}

export function createElements(
  env: RuntimeEnv,
  base: Pick<FrameConfig, 'publishableKey' | 'apiBaseUrl' | 'profileId'>,
  options: ElementsOptions,
  register: (elements: Elements, state: ElementsState) => void,
): Elements {
  if (!options || typeof options !== 'object') {
    throw new IntegrationError('ERR_6002', `Expected elements options {clientSecret}, got ${describeValue(options)}.`);
  }
  assertClientSecret(options.clientSecret);
  const state: ElementsState = {
    config: { ...base, clientSecret: options.clientSecret, locale: 'en', ...checkOptions(options), ...checkCreateOptions(options) },
    payment: null,
  };

  const elements: Elements = {
    create(type: 'payment', elementOptions?: PaymentElementOptions) {
      if (type !== 'payment') {
        throw new IntegrationError('ERR_6002', `Expected element type "payment", got ${describeValue(type)}.`);
      }
      if (state.payment) {
        throw new IntegrationError('ERR_6002', 'This elements group already has a payment element; destroy it or use getElement("payment").');
      }
      const handle = createPaymentElement(
        {
          env,
          config: () => state.config,
          onDestroy: () => {
            if (state.payment === handle) state.payment = null;
          },
        },
        elementOptions,
      );
      state.payment = handle;
      return handle.element;
    },
    getElement(type: 'payment') {
      return type === 'payment' && state.payment ? state.payment.element : null;
    },
    update(next: ElementsUpdateOptions) {
      const update = checkOptions(next ?? {});
      state.config = { ...state.config, ...update };
      state.payment?.push(update);
      return elements;
    },
  };
  register(elements, state);
  return elements;
}
