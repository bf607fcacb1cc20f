// The scale-out measure of `npm run bench`: N server processes behind one port (node:cluster; the primary hands each
// new connection to the next worker), each the compiled server as production runs it, all on one PostgreSQL. Nothing
// in a process is needed by another: keys, idempotency claims, leases and the outbox live in the database.
// Usage: RAIL_BENCH_PROCESSES=N node bench/cluster-server.mjs (Rail's usual environment; prints "cluster ready" once every
// worker listens on both ports).
import cluster from 'node:cluster';

const processes = Number(process.env['RAIL_BENCH_PROCESSES'] ?? 1);

if (cluster.isPrimary) {
  cluster.schedulingPolicy = cluster.SCHED_RR;
  let listening = 0;
  cluster.on('listening', () => {
    listening += 1;
    // Two listeners per worker: the API and the js origin.
    if (listening === 2 * processes) console.log('cluster ready');
  });
  cluster.on('exit', (_worker, code, signal) => {
    if (!stopping) {
      console.error(`a worker exited (${signal ?? code}) during the measure`);
      process.exitCode = 1;
    }
  });
  let stopping = false;
  process.on('SIGTERM', () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  });
  for (let i = 0; i < processes; i += 1) cluster.fork();
} else {
  await import('../dist/server/main.js');
}
