/**
 * Public types of @rail/server. Self-contained, so the published declarations need nothing else.
 */

/** What `startRail()` starts. Every member is optional. */
export interface StartRailOptions {
  /**
   * Where the SQLite file, the vault key and the generated keys live. Default: a new temporary directory (in
   * /dev/shm when writable, else the system's), removed by `stop()`.
   */
  dataDir?: string;
  /** The API port (base_url). Default 0: a free port. */
  port?: number;
  /** The js listener's port (js_url: runtime script and hosted frame). Default 0: a free port. */
  jsPort?: number;
  /** The interface both listeners bind. Default 127.0.0.1. */
  host?: string;
  /**
   * Account settings (the snake_case JSON of RAIL_ACCOUNT_CONFIG, docs/operations.md), or the path of such a file.
   * Default: every simulated rail on in test mode (`DEFAULT_TEST_ACCOUNT`).
   */
  accountConfig?: object | string;
  /** Fixed test keys; default: generated once per data directory. */
  secretKey?: string;
  publishableKey?: string;
  /** Where webhook events are sent (RAIL_WEBHOOK_URL); default none (events are recorded as no_endpoint). */
  webhookUrl?: string;
  webhookSecret?: string;
  /** The server log (pino JSON lines). Default `warn` in process (to stderr), `info` in a child process. */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `in-process` (default): this Node process. `child-process`: the CLI (compiled JavaScript) in its own process. */
  mode?: 'in-process' | 'child-process';
  /** Further RAIL_* environment variables (docs/operations.md), applied last. */
  env?: Record<string, string>;
}

/** A running Rail. */
export interface RunningRail {
  /** The API (what the secret key calls): `http://127.0.0.1:PORT`. */
  baseUrl: string;
  /** The runtime script (`{jsUrl}/v1/`) and the hosted frame. */
  jsUrl: string;
  /** The test secret key (server side only). */
  secretKey: string;
  /** The test publishable key (for the page). */
  publishableKey: string;
  dataDir: string;
  /** The child's process id in `child-process` mode. */
  pid?: number;
  /** Stops the listeners and the store (and the child process); removes a temporary data directory. Idempotent. */
  stop(): Promise<void>;
}

export type StartRail = (options?: StartRailOptions) => Promise<RunningRail>;
