import { z } from 'zod';

/**
 * A schema that is built on its first use (a parse, the OpenAPI document, or a schema built from it) instead of when
 * its module is evaluated. Building the protocol's schemas at import was the largest part of the server's start after
 * Node's own (docs/benchmarks-reading.md, thirty-sixth session), while a server that takes payments parses a few of
 * them. It parses, fails and documents as the schema it builds (a z.lazy, which zod-to-openapi renders as its inner
 * schema).
 *
 * `unwrap()` gives the one schema built, on this schema and on its clones (`.describe()`, `.meta()`): zod's own
 * calls the factory at every call, so the factory given to zod returns what the first call built. A schema built from
 * this one (a field of an object, say) refers to that one, so that parsing it costs no step through the lazy wrapper.
 *
 * The query and path schemas a route is registered with stay objects (the OpenAPI generator lists an object's fields
 * as parameters, and a lazy one has none); their fields are getters instead (`get limit() { return ... }`), which zod
 * reads once, at the object's first parse or the OpenAPI document, and then keeps as plain fields.
 */
export function lazySchema<T extends z.ZodType>(build: () => T): z.ZodLazy<T> {
  let built: T | undefined;
  return z.lazy(() => (built ??= build()));
}
