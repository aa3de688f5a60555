/**
 * Idle memory of `tributary serve` (role all): spawns the service as an operator runs it,
 * waits for /ready and a few quiet seconds (recurring jobs registered, pools settled), then
 * reads the process's resident set (VmRSS) and its peak during start-up (VmHWM). Embedded
 * PGlite by default; with DATABASE_URL, PostgreSQL.
 *
 *   node_modules/.bin/node bench/idle-memory.ts [settleSeconds=5]
 */
import { readFileSync } from 'node:fs';
import { childEnvironment, startService } from '../test/helpers/child-service.ts';
import { reportFigures } from './figures.ts';

const settleSeconds = Number(process.argv[2] ?? 5);

function rssMb(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

const storage = process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite';
const environment = await childEnvironment({ SANDBOX_ARRIVAL_MINUTES: 'off' });
try {
  // The first start creates the store; the figure is for a later start, as a server restarts.
  await (await startService(environment.env)).stop('SIGTERM');
  const service = await startService(environment.env);
  await new Promise((resolve) => setTimeout(resolve, settleSeconds * 1000));
  const { rss, peak } = rssMb(service.process.pid!);
  await service.stop('SIGTERM');
  console.log(`idle memory of tributary serve (role all, ${storage}, default settings)`);
  console.log(`  RSS at idle: ${rss.toFixed(0)} MB (start-up peak ${peak.toFixed(0)} MB)`);
  reportFigures({ idleRssMb: rss, startPeakRssMb: peak });
} finally {
  await environment.cleanup();
}
