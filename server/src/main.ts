/**
 * Entry point of `npm start` (compiled to dist/server/main.js): reads the configuration from the environment and
 * starts the server from this checkout (its dist/ and demo/ under the working directory) through `startServer()`
 * (start.ts), printing the banner. SIGTERM/SIGINT: stop accepting, finish in-flight requests, close the store,
 * exit 0. The embeddable package (packages/server) starts the same server with its own copy of dist/.
 */
import { resolve } from 'node:path';
import { runFromEnvironment } from './run';

runFromEnvironment({ distDir: resolve('dist'), demoPagePaths: [resolve('demo/index.html')] });
