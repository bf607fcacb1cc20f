/**
 * `rail start`: the Rail server from the installed package (compiled JavaScript, its own copy of the runtime and
 * frame). Configuration from the environment (RAIL_*, docs/operations.md), flags taking precedence.
 */
import { readFileSync } from 'node:fs';
import { runFromEnvironment } from '../../../server/src/run';
import { assetPaths } from './assets';

const USAGE = `Usage: rail start [options]

Starts the Rail server (API at base_url, runtime script and hosted frame at js_url) and prints its URLs and test
keys. Configuration comes from the RAIL_* environment variables; these flags take precedence:

  --port N              API port (RAIL_PORT, default 8080; 0: a free port)
  --js-port N           runtime/frame port (RAIL_JS_PORT, default 8081; 0: a free port)
  --host HOST           interface to bind (RAIL_HOST, default 127.0.0.1)
  --data-dir DIR        SQLite file, vault key and generated keys (RAIL_DATA_DIR, default ./.rail-data)
  --account-config FILE account settings JSON (RAIL_ACCOUNT_CONFIG)
  --ready-json          print one JSON line {"rail":"ready",base_url,js_url,secret_key,publishable_key} once ready
`;

const FLAGS: Record<string, string> = {
  '--port': 'RAIL_PORT',
  '--js-port': 'RAIL_JS_PORT',
  '--host': 'RAIL_HOST',
  '--data-dir': 'RAIL_DATA_DIR',
  '--account-config': 'RAIL_ACCOUNT_CONFIG',
};

function fail(message: string): never {
  process.stderr.write(`rail: ${message}\n\n${USAGE}`);
  process.exit(2);
}

const [command, ...rest] = process.argv.slice(2);
if (command === '--help' || command === '-h' || command === 'help') {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (command === '--version' || command === '-v') {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  process.stdout.write(`${pkg.version}\n`);
  process.exit(0);
}
if (command !== 'start') fail(command === undefined ? 'no command given' : `unknown command "${command}"`);

const env: NodeJS.ProcessEnv = { ...process.env };
let readyJson = false;
for (let i = 0; i < rest.length; i += 1) {
  const arg = rest[i] as string;
  if (arg === '--ready-json') {
    readyJson = true;
    continue;
  }
  const [flag, inline] = arg.includes('=') ? (arg.split(/=(.*)/s, 2) as [string, string]) : [arg, undefined];
  const variable = FLAGS[flag];
  if (variable === undefined) fail(`unknown option "${arg}"`);
  const value = inline ?? rest[++i];
  if (value === undefined) fail(`${flag} needs a value`);
  env[variable] = value;
}

const paths = assetPaths();
runFromEnvironment({ distDir: paths.distDir, demoPagePaths: paths.demoPagePaths, env, readyJson });
