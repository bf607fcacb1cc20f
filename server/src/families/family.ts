import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from '../http/app-deps';
import type { AppEnv } from '../http/env';

/**
 * An API family as the application sees it: its name and the routes it registers. Its core operations, stores
 * and migrations are its own folders (docs/architecture.md, "Adding a family"); route order does not matter
 * (http/route-order.ts).
 */
export interface Family {
  name: string;
  routes(app: OpenAPIHono<AppEnv>, deps: AppDeps): void;
  /**
   * Routes (method and literal path) that bound their request body themselves, with a larger limit of their own
   * (file uploads): the app's global body limit skips them.
   */
  ownBodyLimit?: readonly { method: string; path: string }[];
}
