/**
 * @rail/react: React bindings of the Rail runtime. `<Elements>` holds one elements group of a Rail instance (or of
 * the promise @rail/loader's `loadRail()` returns), `<PaymentElement>` mounts the payment element with its events as
 * props, `useRail()` / `useElements()` hand both to the component that confirms. SSR-safe: nothing touches the DOM
 * or `window` while rendering; the element mounts in an effect. Types are the runtime's public types (@rail/loader).
 */
import { createContext, createElement, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { ElementEventMap, Elements as RailElements, ElementsOptions, PaymentElementOptions, PaymentElement as RailPaymentElement, Rail } from '@rail/loader';

export type * from '@rail/loader';

interface RailContextValue {
  rail: Rail | null;
  elements: RailElements | null;
}

const RailContext = createContext<RailContextValue | null>(null);

export interface ElementsProps {
  /** A Rail instance, the promise of one (`loadRail(...)`), or null while there is none (e.g. on the server). */
  rail: Rail | PromiseLike<Rail | null> | null;
  /** The elements group's options; `clientSecret`, `appearance` and `locale` changes are applied live. */
  options: ElementsOptions;
  /**
   * Called when the promised Rail rejects (loadRail's `LoadError` or `TypeError`); nothing mounts then. Without it
   * the error goes to `console.error`, never to an unhandled rejection.
   */
  onLoadError?: (error: unknown) => void;
  children?: ReactNode;
}

const isPromise = (value: unknown): value is PromiseLike<Rail | null> => typeof (value as PromiseLike<unknown> | null)?.then === 'function';

const group = (rail: Rail | null, options: ElementsOptions): RailContextValue => ({ rail, elements: rail && rail.elements(options) });

/** Provides a Rail instance and one elements group to the components below it. */
export function Elements({ rail, options, onLoadError, children }: ElementsProps) {
  const [value, setValue] = useState<RailContextValue>(() => (isPromise(rail) ? { rail: null, elements: null } : group(rail, options)));
  const created = useRef(options);
  // Read when the promise rejects, so a new callback on each render does not re-subscribe.
  const latestOnLoadError = useRef(onLoadError);
  latestOnLoadError.current = onLoadError;

  useEffect(() => {
    if (!isPromise(rail)) {
      if (rail !== value.rail) {
        created.current = options;
        setValue(group(rail, options));
      }
      return;
    }
    let live = true;
    rail.then(
      (resolved) => {
        if (!live) return;
        created.current = options;
        setValue(group(resolved, options));
      },
      (error: unknown) => {
        // A replaced promise's failure is handled too, but no longer reported.
        if (!live) return;
        if (latestOnLoadError.current) latestOnLoadError.current(error);
        else console.error(error);
      },
    );
    return () => {
      live = false;
    };
    // The group is (re)made when the rail changes; later option changes go through update() below.
  }, [rail]);

  const { clientSecret, appearance, locale } = options;
  useEffect(() => {
    const first = created.current;
    if (!value.elements || (first.clientSecret === clientSecret && first.appearance === appearance && first.locale === locale)) return;
    created.current = options;
    value.elements.update({ clientSecret, appearance, locale });
  }, [value.elements, clientSecret, appearance, locale]);

  return createElement(RailContext.Provider, { value }, children);
}

function useRailContext(hook: string): RailContextValue {
  const value = useContext(RailContext);
  if (value === null) throw new Error(`${hook} must be used inside <Elements>.`);
  return value;
}

/** The Rail instance of the enclosing `<Elements>` (null until a promised instance resolves). */
export function useRail(): Rail | null {
  return useRailContext('useRail()').rail;
}

/** The elements group of the enclosing `<Elements>`: pass it to `rail.confirmPayment({ elements })`. */
export function useElements(): RailElements | null {
  return useRailContext('useElements()').elements;
}

type Handler<T extends keyof ElementEventMap> = (event: ElementEventMap[T]) => void;

export interface PaymentElementProps {
  id?: string;
  className?: string;
  options?: PaymentElementOptions;
  onReady?: Handler<'ready'>;
  onChange?: Handler<'change'>;
  onFocus?: Handler<'focus'>;
  onBlur?: Handler<'blur'>;
  onEscape?: Handler<'escape'>;
  onSubmit?: Handler<'submit'>;
  onLoaderStart?: Handler<'loaderstart'>;
  onLoadError?: Handler<'loaderror'>;
  /** The element itself, once created (focus(), clear(), ...); null after it is destroyed. */
  onElement?: (element: RailPaymentElement | null) => void;
}

const EVENTS: [keyof ElementEventMap, keyof PaymentElementProps][] = [
  ['ready', 'onReady'],
  ['change', 'onChange'],
  ['focus', 'onFocus'],
  ['blur', 'onBlur'],
  ['escape', 'onEscape'],
  ['submit', 'onSubmit'],
  ['loaderstart', 'onLoaderStart'],
  ['loaderror', 'onLoadError'],
];

/** Mounts the payment element of the enclosing `<Elements>` into a div; its events call the matching props. */
export function PaymentElement(props: PaymentElementProps) {
  const elements = useRailContext('<PaymentElement>').elements;
  const container = useRef<HTMLDivElement>(null);
  // Handlers are read when an event fires, so a new callback on each render neither re-mounts nor re-subscribes.
  const latest = useRef(props);
  latest.current = props;
  const element = useRef<RailPaymentElement | null>(null);

  useEffect(() => {
    if (!elements || !container.current) return;
    const created = elements.create('payment', latest.current.options);
    for (const [type, prop] of EVENTS) created.on(type, (event: unknown) => (latest.current[prop] as ((event: unknown) => void) | undefined)?.(event));
    created.mount(container.current);
    element.current = created;
    latest.current.onElement?.(created);
    return () => {
      element.current = null;
      created.destroy();
      latest.current.onElement?.(null);
    };
  }, [elements]);

  const title = props.options?.title;
  useEffect(() => {
    if (title !== undefined) element.current?.update({ title });
  }, [title]);

  return createElement('div', { id: props.id, className: props.className, ref: container });
}
