/**
 * Reports the element's height whenever it changes. `measure` is also called after each render, because browsers
 * may throttle ResizeObserver in frames that are off screen or tiny.
 */
export function observeHeight(element: HTMLElement, onHeight: (height: number) => void): { measure(): void; stop(): void } {
  let last = -1;
  const measure = () => {
    const height = Math.ceil(element.getBoundingClientRect().height);
    if (height !== last) {
      last = height;
      onHeight(height);
    }
  };
  const observer = typeof ResizeObserver === 'function' ? new ResizeObserver(measure) : undefined;
  observer?.observe(element);
  return { measure, stop: () => observer?.disconnect() };
}
