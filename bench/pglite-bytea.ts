/**
 * Embedded storage's bytea path (issue 40, row 9): a lab report file written to PGlite and read
 * back, at several sizes, once with PGlite's own bytea conversion (a string per byte) and once
 * with the store's (Buffer's hex codec, store/db.ts). Each write and read runs in a fresh process
 * under a V8 heap limit (--max-old-space-size); the figure is the smallest limit of 384 MB (the
 * served process's), 192, 96 and 48 MB under which it completes, or `out of heap even at 384 MB`.
 * (A peak sampled from inside is no figure here: the conversion is one synchronous call, and no
 * timer runs while it does.)
 *
 *   node_modules/.bin/node bench/pglite-bytea.ts
 */
import { spawnSync } from 'node:child_process';
import { openStore } from '../src/store/db.ts';

const MB = 1024 * 1024;
const SIZES = [5, 8, 12, 19];
const HEAP_LIMITS_MB = [384, 192, 96, 48];

type Conversion = 'pglite' | 'store';

async function writeAndRead(sizeMb: number, conversion: Conversion) {
  const bytes = Buffer.alloc(sizeMb * MB);
  for (let index = 0; index < bytes.length; index++) bytes[index] = (index * 2654435761) >>> 24;
  const pglite =
    conversion === 'store'
      ? (await openStore({ databaseUrl: undefined, dataDir: undefined })).pglite!
      : await (await import('@electric-sql/pglite')).PGlite.create();
  await pglite.exec('CREATE TABLE f (b bytea)');
  await pglite.query('INSERT INTO f VALUES ($1)', [bytes]);
  const row = await pglite.query<{ b: Uint8Array }>('SELECT b FROM f');
  if (!Buffer.from(row.rows[0]!.b).equals(bytes)) throw new Error('read back other bytes');
}

/** Whether the write and read complete in a process with this heap limit. */
function completes(sizeMb: number, conversion: Conversion, heapMb: number): boolean {
  const run = spawnSync(
    process.execPath,
    [
      `--max-old-space-size=${heapMb}`,
      new URL(import.meta.url).pathname,
      'child',
      String(sizeMb),
      conversion,
    ],
    { encoding: 'utf8', timeout: 300_000 },
  );
  if (run.status === 0) return true;
  if (/heap out of memory|Reached heap limit/i.test(run.stderr)) return false;
  throw new Error(`run failed (${run.status ?? run.signal}): ${run.stderr.split('\n').slice(-5).join(' ')}`);
}

if (process.argv[2] === 'child') {
  await writeAndRead(Number(process.argv[3]), process.argv[4] as Conversion);
} else {
  for (const conversion of ['pglite', 'store'] as const) {
    for (const size of SIZES) {
      let smallest: number | undefined;
      for (const heapMb of HEAP_LIMITS_MB) {
        if (!completes(size, conversion, heapMb)) break;
        smallest = heapMb;
      }
      const figure =
        smallest === undefined ? 'out of heap even at 384 MB' : `completes with a ${smallest} MB heap limit`;
      process.stdout.write(`${conversion} bytea conversion, ${size} MB file: ${figure}\n`);
    }
  }
}
