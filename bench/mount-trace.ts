/**
 * Summarizes a trace that `BENCH_MOUNT_TRACE=<file> node --import tsx bench/mount.ts` recorded: from the bench page's
 * `bench:mount` mark to its `bench:ready` mark, the frame's requests (from the HTTP cache or not, status), the
 * frame's and the bench's marks, and every task of the renderer's main thread of 0.7 ms or more with what it did
 * (parse, script evaluation and V8 compilation, layout, post messages), in ms from mount().
 *   node --import tsx bench/mount-trace.ts /tmp/mount.json
 * Never a test.
 */
import { readFileSync } from 'node:fs';

interface TraceEvent {
  name: string;
  cat?: string;
  ph?: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { data?: Record<string, unknown> } & Record<string, unknown>;
}

/** What a task is made of: the trace events worth naming, summed by label. */
const PARTS = new Set(['ParseHTML', 'EvaluateScript', 'v8.compile', 'v8.compileModule', 'v8.evaluateModule', 'FunctionCall', 'TimerFire', 'FireAnimationFrame', 'EventDispatch', 'Layout', 'UpdateLayoutTree', 'Paint', 'RunMicrotasks', 'HandlePostMessage', 'ParseAuthorStyleSheet', 'V8.CompileCode', 'DocumentLoader::CommitNavigation']);
const NETWORK = new Set(['ResourceSendRequest', 'ResourceReceiveResponse', 'ResourceFinish']);

export function summarizeMountTrace(events: TraceEvent[]): string[] {
  const mount = events.find((event) => event.name === 'bench:mount');
  const ready = events.find((event) => event.name === 'bench:ready');
  if (!mount || !ready) throw new Error('no bench:mount and bench:ready marks: record the trace with BENCH_MOUNT_TRACE');
  const ms = (ts: number) => ((ts - mount.ts) / 1000).toFixed(1).padStart(7);
  const within = (event: TraceEvent) => event.ts >= mount.ts && event.ts <= ready.ts;
  const lines: string[] = [];
  const urls = new Map<unknown, string>();
  for (const event of events.filter((candidate) => NETWORK.has(candidate.name)).sort((a, b) => a.ts - b.ts)) {
    const data = event.args?.data ?? {};
    if (event.name === 'ResourceSendRequest') urls.set(data['requestId'], String(data['url']).replace(/#.*/, '#...').replace(/client_secret=[^&]+/, 'client_secret=...'));
    const url = urls.get(data['requestId']);
    if (!within(event) || url === undefined || url.startsWith('chrome')) continue;
    const detail = event.name === 'ResourceReceiveResponse' ? ` status ${String(data['statusCode'])}${data['fromCache'] ? ', from the HTTP cache' : ''}` : '';
    lines.push(`${ms(event.ts)}  ${event.name.replace('Resource', '').padEnd(15)} ${url}${detail}`);
  }
  for (const event of events.filter((candidate) => /^(rail|bench):/.test(candidate.name) && within(candidate))) lines.push(`${ms(event.ts)}  mark            ${event.name}`);
  const main = events.filter((event) => event.pid === mount.pid && event.tid === mount.tid && event.ph === 'X' && within(event)).sort((a, b) => a.ts - b.ts);
  let busy = 0;
  for (const task of main.filter((event) => event.name === 'RunTask' && event.cat?.includes('devtools.timeline'))) {
    const duration = (task.dur ?? 0) / 1000;
    busy += duration;
    if (duration < 0.7) continue;
    const parts = new Map<string, number>();
    for (const event of main) {
      if (event === task || event.ts < task.ts || event.ts > task.ts + (task.dur ?? 0) || !PARTS.has(event.name)) continue;
      const data = event.args?.data ?? {};
      const where = typeof data['url'] === 'string' ? ` ${String(data['url']).split('/').pop()?.replace(/#.*/, '')}` : '';
      const label = `${event.name}${['EvaluateScript', 'v8.compile', 'v8.compileModule', 'FunctionCall'].includes(event.name) ? where : ''}`;
      parts.set(label, (parts.get(label) ?? 0) + (event.dur ?? 0) / 1000);
    }
    const described = [...parts].filter(([, total]) => total >= 0.3).map(([label, total]) => `${label} ${total.toFixed(1)}`).join('; ');
    lines.push(`${ms(task.ts)}  task ${duration.toFixed(1).padStart(5)} ms  ${described}`);
  }
  lines.sort((a, b) => Number.parseFloat(a) - Number.parseFloat(b));
  lines.push(`main thread busy ${busy.toFixed(1)} ms of ${((ready.ts - mount.ts) / 1000).toFixed(1)} ms from mount() to ready`);
  return lines;
}

if (process.argv[1]?.endsWith('bench/mount-trace.ts')) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node --import tsx bench/mount-trace.ts <trace.json>');
  const trace = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: TraceEvent[] } | TraceEvent[];
  console.log(summarizeMountTrace(Array.isArray(trace) ? trace : trace.traceEvents).join('\n'));
}
