/**
 * The user archive's memory against its size (issue 40, row 8): for each RECORDS, one run of
 * test/helpers/archive-run.ts as its own process under a heap limit — a SANDBOX user whose
 * activities are stored again RECORDS times with an hour of 1 s heart-rate samples each (a few
 * hundred KB a row), archived through a real socket. Prints per size the records archived, the
 * archive's size, and the heap and RSS once seeded and at their peak while the archive streamed.
 * The peak heap should not grow with the records. (bench/user-archive.ts measures the same path
 * with many small SANDBOX records, in process.) On the default engine (embedded PostgreSQL, its
 * server's memory not counted: it runs as processes of its own); DATABASE_URL for PostgreSQL.
 *
 *   node_modules/.bin/node bench/user-archive-memory.ts [records=100,250,500] [heapMb=144]
 */
import { spawn } from 'node:child_process';
import { reportFigures } from './figures.ts';

const NODE = new URL('../node_modules/.bin/node', import.meta.url).pathname;
const RUN = new URL('../test/helpers/archive-run.ts', import.meta.url).pathname;
const SIZES = (process.argv[2] ?? '100,250,500').split(',').map(Number);
const HEAP_MB = Number(process.argv[3] ?? 144);

type Result = {
  records: number;
  rowsMb: number;
  engine: string;
  archivedActivities: number | null;
  archiveMb: number;
  baseHeapMb: number;
  peakHeapMb: number;
  baseRssMb: number;
  peakRssMb: number;
};

function run(records: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      NODE,
      ['--expose-gc', `--max-old-space-size=${HEAP_MB}`, RUN, String(records), '3600'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, ...(process.env.DATABASE_URL ? {} : { RUN_ENGINE: 'embedded' }) },
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`${records} records: exited with ${code}`));
      else resolve(JSON.parse(line) as Result);
    });
  });
}

const figures: Record<string, number> = {};
const ENGINE = process.env.DATABASE_URL
  ? 'PostgreSQL at DATABASE_URL'
  : 'embedded PostgreSQL (the default engine)';
console.log(`${ENGINE}; heap limit ${HEAP_MB} MB (--max-old-space-size)`);
for (const size of SIZES) {
  const result = await run(size);
  console.log(
    `${result.records} records, ${result.rowsMb} MB of rows (${result.archivedActivities} activities archived), ` +
      `${result.archiveMb} MB zip, ${result.engine}: ` +
      `heap ${result.baseHeapMb} → peak ${result.peakHeapMb} MB; RSS ${result.baseRssMb} → peak ${result.peakRssMb} MB`,
  );
  figures[`user_archive_${size}_peak_heap_mb`] = result.peakHeapMb;
  figures[`user_archive_${size}_peak_rss_mb`] = result.peakRssMb;
  figures[`user_archive_${size}_rows_mb`] = result.rowsMb;
}
reportFigures(figures);
