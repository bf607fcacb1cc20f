// A test process that embeds Rail, as `npm run bench` times it (bench/startup.ts): imports the built @rail/server
// (packages/server/dist/, or the one under the directory given as argv[3]), calls startRail() in the mode given as
// argv[2] ('in-process' or 'child-process'), checks /health answers 200, prints one JSON line
// {importMs, startMs, rssMb, startCpuMs, processCpuMs, childCpuMs?} and stops the server. Usage: node bench/start-rail-probe.mjs MODE [ROOT]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const mode = process.argv[2] ?? 'in-process';
const root = resolve(process.argv[3] ?? '.');
const began = performance.now();
const { startRail } = await import(pathToFileURL(join(root, 'packages/server/dist/index.js')).href);
const imported = performance.now();
const cpuBefore = process.cpuUsage();
const rail = await startRail({ mode });
const health = await fetch(`${rail.baseUrl}/health`);
const started = performance.now();
if (health.status !== 200) throw new Error(`/health answered ${health.status}`);
const cpuDuring = process.cpuUsage(cpuBefore);
const cpuTotal = process.cpuUsage();
const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${rail.pid ?? process.pid}/status`, 'utf8'))?.[1]);
// The server's own process (child-process mode): user + system ticks (10 ms) from /proc.
const childStat = rail.pid === undefined ? undefined : readFileSync(`/proc/${rail.pid}/stat`, 'utf8').split(') ')[1].split(' ');
const result = {
  importMs: imported - began,
  startMs: started - imported,
  rssMb: rssKb / 1024,
  startCpuMs: (cpuDuring.user + cpuDuring.system) / 1000,
  processCpuMs: (cpuTotal.user + cpuTotal.system) / 1000,
  ...(childStat === undefined ? {} : { childCpuMs: (Number(childStat[11]) + Number(childStat[12])) * 10 }),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
await rail.stop();
