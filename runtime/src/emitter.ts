type Handler = (event: never) => void;

/** Per-element listeners: `on`, `once`, `off` and `emit`; `clear` frees them all on destroy. */
export function createEmitter() {
  let handlers = new Map<string, { fn: Handler; once: boolean }[]>();
  return {
    on(type: string, fn: Handler, once = false): void {
      if (typeof fn !== 'function') return;
      const list = handlers.get(type) ?? [];
      list.push({ fn, once });
      handlers.set(type, list);
    },
    off(type: string, fn?: Handler): void {
      const list = handlers.get(type);
      if (!list) return;
      if (fn === undefined) handlers.delete(type);
      else handlers.set(type, list.filter((entry) => entry.fn !== fn));
    },
    emit(type: string, event: object): void {
      const list = handlers.get(type);
      if (!list) return;
      handlers.set(type, list.filter((entry) => !entry.once));
      for (const entry of list) {
        try {
          (entry.fn as (event: object) => void)(event);
        } catch (error) {
          // A merchant handler that throws must not stop the other handlers or break the element.
          setTimeout(() => {
            throw error;
          });
        }
      }
    },
    clear(): void {
      handlers = new Map();
    },
  };
}
export type Emitter = ReturnType<typeof createEmitter>;
