// Proves the packages work as published (`npm run test:packages`, after `npm run build`): checks that every
// workspace package has the repository's version and names its @rail dependencies at exactly that version, packs
// each one (`npm pack`), copies examples/react-checkout into a temporary directory outside the repository, points
// its @rail dependencies at the tarballs, installs, and there runs: the `rail` CLI (start, a payment created and
// confirmed over HTTP, SIGTERM), `tsc --noEmit` against the published types, `vite build`, and its Playwright
// checkout (the built app with the @rail/playwright fixture, and vite dev with @rail/vite).
// KEEP=1 keeps the temporary directory. Usage: node scripts/check-packages.mjs
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** The workspace packages and whether their versions are in step; returns problems (empty when fine). */
export function versionProblems(root = ROOT) {
  const rootPkg = readJson(join(root, 'package.json'));
  const problems = [];
  const packages = workspacePackages(root);
  const names = new Set(packages.map((pkg) => pkg.json.name));
  for (const { dir, json } of packages) {
    if (json.version !== rootPkg.version) problems.push(`${json.name} (${dir}) is at ${json.version}, the repository at ${rootPkg.version}`);
    for (const field of ['dependencies', 'peerDependencies', 'devDependencies']) {
      for (const [name, range] of Object.entries(json[field] ?? {})) {
        if (names.has(name) && range !== rootPkg.version) problems.push(`${json.name} names ${name}@${range} in ${field}; it must be exactly ${rootPkg.version}`);
      }
    }
  }
  return problems;
}

export function workspacePackages(root = ROOT) {
  const dirs = ['loader', 'server', 'playwright', 'vite', 'react'].map((name) => (name === 'loader' ? 'loader' : `packages/${name}`));
  return dirs.map((dir) => ({ dir, json: readJson(join(root, dir, 'package.json')) }));
}

function run(command, args, cwd, options = {}) {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, stdio: options.capture ? 'pipe' : 'inherit', encoding: 'utf8', env: { ...process.env, ...options.env } });
  if (result.status !== 0) {
    if (options.capture) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${result.status}`);
  }
  console.log(`packages: ${command} ${args.join(' ')}: ok (${Math.round(performance.now() - started)} ms)`);
  return result.stdout;
}

/** `rail start` from the installed package: ready line, a UPI payment created and confirmed, SIGTERM exits 0. */
async function checkCli(app) {
  const child = spawn(join(app, 'node_modules/.bin/rail'), ['start', '--port', '0', '--js-port', '0', '--data-dir', join(app, '.rail-cli-data'), '--ready-json'], {
    cwd: app,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const ready = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('rail start: no ready line within 30 s')), 30_000);
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.startsWith('{"rail":"ready"')) {
          clearTimeout(timer);
          resolve(JSON.parse(line));
        }
      });
      exited.then((code) => reject(new Error(`rail start exited ${code} before it was ready`)));
    });
    const post = async (path, key, body) =>
      (await fetch(`${ready.base_url}${path}`, { method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
    const payment = await post('/payments', ready.secret_key, { amount: 10000, currency: 'INR', payment_method_data: { upi: { upi_collect: { vpa_id: 'success@upi' } } } });
    const confirmed = await post(`/payments/${payment.payment_id}/confirm`, ready.publishable_key, { client_secret: payment.client_secret });
    if (confirmed.status !== 'succeeded') throw new Error(`rail start: the confirmed payment is ${JSON.stringify(confirmed)}`);
    const runtime = await fetch(`${ready.js_url}/v1/`);
    if (runtime.status !== 200) throw new Error(`rail start: ${ready.js_url}/v1/ answered ${runtime.status}`);
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
  }
  const code = await exited;
  if (code !== 0) throw new Error(`rail start: SIGTERM ended it with ${code}`);
  console.log('packages: rail start (installed CLI): ready, payment succeeded, stopped with 0');
}

async function main() {
  const problems = versionProblems();
  if (problems.length > 0) throw new Error(`versions out of step:\n  ${problems.join('\n  ')}`);
  const version = readJson(join(ROOT, 'package.json')).version;
  const work = mkdtempSync(join(tmpdir(), 'rail-packages-'));
  if (!relative(ROOT, work).startsWith('..')) throw new Error(`the temporary directory ${work} is inside the repository`);
  try {
    const tarballs = join(work, 'tarballs');
    mkdirSync(tarballs);
    const tarballOf = {};
    for (const { dir, json } of workspacePackages()) {
      const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', tarballs], join(ROOT, dir), { capture: true }));
      tarballOf[json.name] = join(tarballs, packed[0].filename);
    }
    const app = join(work, 'react-checkout');
    cpSync(join(ROOT, 'examples/react-checkout'), app, {
      recursive: true,
      filter: (source) => !/[\\/](node_modules|dist|test-results|playwright-report)$/.test(source),
    });
    const pkg = readJson(join(app, 'package.json'));
    for (const field of ['dependencies', 'devDependencies']) {
      for (const name of Object.keys(pkg[field] ?? {})) if (tarballOf[name]) pkg[field][name] = `file:${tarballOf[name]}`;
    }
    // The packages name each other at `version`: the tarballs answer those names, never the registry.
    pkg.overrides = Object.fromEntries(Object.entries(tarballOf).map(([name, file]) => [name, `file:${file}`]));
    writeFileSync(join(app, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    // JOBS=max: node-gyp compiles better-sqlite3 (when no prebuilt binary can be fetched) on every core.
    run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], app, { env: { JOBS: 'max' } });
    const cliVersion = run(join(app, 'node_modules/.bin/rail'), ['--version'], app, { capture: true }).trim();
    if (cliVersion !== version) throw new Error(`rail --version says ${cliVersion}, expected ${version}`);
    await checkCli(app);
    run(join(app, 'node_modules/.bin/tsc'), ['--noEmit', '-p', 'tsconfig.json'], app);
    run(join(app, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], app);
    run(join(app, 'node_modules/.bin/playwright'), ['test', '--reporter=list'], app, { env: { CI: '1' } });
    console.log(`packages: ${Object.keys(tarballOf).length} tarballs installed into ${app} and proven`);
  } finally {
    if (process.env.KEEP) console.log(`packages: kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(`packages: FAILED: ${error.message}`);
    process.exit(1);
  });
}
