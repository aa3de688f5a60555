/**
 * Cold start to /ready on embedded storage: the first start on an empty data dir (creates
 * the PGlite cluster, runs migrations, creates the sandbox developer) and later starts on
 * the same data dir. Each figure is from spawning `tributary serve` to the first 200 from
 * /ready, over several runs.
 *
 *   node_modules/.bin/node bench/cold-start.ts [runs]
 */
import { childEnvironment, startService } from '../test/helpers/child-service.ts';
import { reportFigures } from './figures.ts';

const runs = Number(process.argv[2] ?? 3);

async function timeToReady(env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const service = await startService(env);
  const elapsed = performance.now() - started;
  await service.stop('SIGTERM');
  return elapsed;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return `median ${median.toFixed(0)} ms (min ${sorted[0]?.toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms)`;
};

const first: number[] = [];
const later: number[] = [];
for (let run = 0; run < runs; run++) {
  const environment = await childEnvironment({ DATABASE_URL: '' });
  try {
    first.push(await timeToReady(environment.env));
    later.push(await timeToReady(environment.env));
    later.push(await timeToReady(environment.env));
  } finally {
    await environment.cleanup();
  }
}
console.log(`cold start to /ready, embedded PGlite, ${runs} runs`);
console.log(`  first start (empty data dir): ${summary(first)}`);
console.log(`  later starts:                 ${summary(later)}`);
reportFigures({ coldStartFirstMs: median(first), coldStartLaterMs: median(later) });
