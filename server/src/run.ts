/**
 * The server process: configuration from the environment (config.ts), the server started (start.ts), the banner
 * printed, SIGTERM/SIGINT stopping it gracefully (exit 0; exit 1 when in-flight requests outlast the grace). Used by
 * main.ts (`npm start`) and by the CLI of the embeddable package (`rail start`), which differ only in where the
 * built assets are.
 */
import { ConfigError, loadConfig, type Config } from './config';
import { createLogger, endLog, type Logger } from './logger';
import { startServer, type RunningServer } from './start';

const SHUTDOWN_GRACE_MS = 10_000;

export interface RunOptions {
  distDir: string;
  demoPagePaths: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** Also print one JSON line `{"rail":"ready",base_url,js_url,secret_key,publishable_key}` after the banner. */
  readyJson?: boolean;
}

export function runFromEnvironment(options: RunOptions): void {
  run(options).catch((error: unknown) => {
    process.stderr.write(`rail: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}

async function run(options: RunOptions): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(options.env ?? process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`rail: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger: Logger = createLogger(config.logLevel);
  // A stdout whose reader has gone (`rail start | head -1`) fails the banner's write with EPIPE: the server goes on.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  const running: RunningServer = await startServer({
    config,
    logger,
    distDir: options.distDir,
    demoPagePaths: options.demoPagePaths,
    announce: (banner) => process.stdout.write(`${['', 'Rail is running', ...banner].join('\n')}\n\n`),
  });
  if (options.readyJson) {
    const ready = { rail: 'ready', base_url: running.baseUrl, js_url: running.jsUrl, secret_key: running.secretKey, publishable_key: running.publishableKey };
    process.stdout.write(`${JSON.stringify(ready)}\n`);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const force = setTimeout(() => {
      logger.error('in-flight requests did not finish in time; exiting');
      void endLog(logger).then(() => process.exit(1));
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    await running.stop();
    logger.info('stopped');
    await endLog(logger);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
