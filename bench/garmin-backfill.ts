/**
 * Memory of Garmin backfills at real volume (issue 40, row 6): for each size DAYSxUSERS, one run
 * of test/helpers/garmin-backfill-run.ts as its own process under a heap limit — the Garmin fake
 * at a real watch's sample density (1 s activity samples, 15 s daily heart rate, all-day epochs,
 * 3-minute stress) in a thread of its own, USERS accounts connected, each asking for its
 * backfill, every ping's callback pulled and stored. Prints, per size, the records stored against
 * those the fake holds, the service's heap once up, at its peak and right after full collections
 * (the live heap: the peak depends on when the collector runs), and the process's peak RSS
 * (the fake's thread included; an embedded PostgreSQL runs as processes of its own). The service's peak heap should not grow
 * with the days or the users. On the default engine (embedded PostgreSQL, its server's memory not counted: it
 * runs as processes of its own); with DATABASE_URL, that PostgreSQL.
 *
 *   node_modules/.bin/node bench/garmin-backfill.ts [sizes=30x1,60x1,90x1] [heapMb=256]
 *   node_modules/.bin/node bench/garmin-backfill.ts 90x1,90x5,90x20
 */
import { spawn } from 'node:child_process';
import { reportFigures } from './figures.ts';

const NODE = new URL('../node_modules/.bin/node', import.meta.url).pathname;
const RUN = new URL('../test/helpers/garmin-backfill-run.ts', import.meta.url).pathname;
const SIZES = (process.argv[2] ?? '30x1,60x1,90x1').split(',').map((size) => {
  const [days, users] = size.split('x').map(Number);
  if (!days || !users) throw new Error(`a size is DAYSxUSERS, not ${size}`);
  return { days, users };
});
const HEAP_MB = Number(process.argv[3] ?? 256);

type Result = {
  stored: Record<string, number>[];
  expected: Record<string, number>;
  seconds: number;
  baseHeapMb: number;
  peakHeapMb: number;
  peakLiveHeapMb: number;
  peakRssMb: number;
};

function run(days: number, users: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      NODE,
      ['--expose-gc', `--max-old-space-size=${HEAP_MB}`, RUN, String(days), String(users)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, ...(process.env.DATABASE_URL ? {} : { RUN_ENGINE: 'embedded' }) },
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{'))
        reject(new Error(`${days}x${users} exited with ${code}: ${out}`));
      else resolve(JSON.parse(line) as Result);
    });
  });
}

const figures: Record<string, number> = {};
const ENGINE = process.env.DATABASE_URL
  ? 'PostgreSQL at DATABASE_URL'
  : 'embedded PostgreSQL (the default engine)';
console.log(`${ENGINE}; heap limit ${HEAP_MB} MB (--max-old-space-size)`);
for (const { days, users } of SIZES) {
  const result = await run(days, users);
  const complete = result.stored.every((byType) =>
    Object.entries(result.expected).every(([type, count]) => byType[type] === count),
  );
  // What falls short (per type: stored by the first short user, and what the fake holds).
  const short = Object.entries(result.expected)
    .map(([type, count]) => {
      const stored = result.stored.find((byType) => byType[type] !== count)?.[type] ?? count;
      return stored === count ? null : `${type} ${stored} of ${count}`;
    })
    .filter(Boolean);
  const records = result.stored.reduce(
    (sum, byType) => sum + Object.values(byType).reduce((a, b) => a + b, 0),
    0,
  );
  console.log(
    `${days} days × ${users} user(s): ${records} records${complete ? '' : ` (INCOMPLETE: ${short.join(', ')})`} in ` +
      `${result.seconds.toFixed(0)} s; heap once up ${result.baseHeapMb} MB, peak ${result.peakHeapMb} MB ` +
      `(live after a full collection ${result.peakLiveHeapMb} MB); ` +
      `peak RSS ${result.peakRssMb} MB`,
  );
  figures[`garmin_backfill_${days}d_${users}u_peak_heap_mb`] = result.peakHeapMb;
  figures[`garmin_backfill_${days}d_${users}u_peak_live_heap_mb`] = result.peakLiveHeapMb;
  figures[`garmin_backfill_${days}d_${users}u_peak_rss_mb`] = result.peakRssMb;
  figures[`garmin_backfill_${days}d_${users}u_records`] = records;
}
reportFigures(figures);
