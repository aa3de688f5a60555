// Spool folders a crashed process leaves behind (provider-kit/piece-spool.ts): a process that
// opens a spool and is killed before closing it leaves `tributary-pieces-<pid>-…`; the sweep (run
// by a worker at start and when a spool closes) removes it, and never a folder whose process
// still runs, nor another file of the temporary folder.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openPieceSpool, sweepAbandonedSpools } from '../../src/provider-kit/piece-spool.ts';

const NODE = join(fileURLToPath(new URL('../../', import.meta.url)), 'node_modules/.bin/node');
const SPOOL = fileURLToPath(new URL('../../src/provider-kit/piece-spool.ts', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'spool-sweep-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A process with TMPDIR=`dir` that opens a spool, writes a piece, and is killed (SIGKILL). */
async function crashMidSpool(dir: string): Promise<void> {
  const script = `
    const { openPieceSpool } = await import(${JSON.stringify(SPOOL)});
    const spool = await openPieceSpool({ pieces: 10, bytes: 1e6, pieceBytes: 1e6 });
    await spool.add(['2026-01-01'], 'daily', { steps: 1 });
    await spool.pieces();
    process.stdout.write('written\\n');
    setInterval(() => {}, 1000);
  `;
  const child = spawn(NODE, ['--input-type=module', '-e', script], {
    env: { ...process.env, TMPDIR: dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(child.stdout, 'data');
  child.kill('SIGKILL');
  await once(child, 'exit');
}

test('the folder of a process killed mid-spool is swept; live ones and other files are kept', async () => {
  const dir = join(scratch, 'tmp');
  mkdirSync(dir);
  await crashMidSpool(dir);
  const left = readdirSync(dir);
  assert.equal(left.length, 1, 'the killed process left its folder');
  assert.match(left[0]!, /^tributary-pieces-\d+-/);
  assert.deepEqual(readdirSync(join(dir, left[0]!)), ['0.ndjson'], 'with its piece in it');

  // Ours (this process runs), an earlier release's recent one, another program's folder.
  mkdirSync(join(dir, `tributary-pieces-${process.pid}-abcdef`));
  mkdirSync(join(dir, 'tributary-pieces-Xy12Zq'));
  writeFileSync(join(dir, 'something-else'), 'kept');

  assert.deepEqual(await sweepAbandonedSpools(dir), left);
  assert.deepEqual(
    readdirSync(dir).sort(),
    ['something-else', 'tributary-pieces-Xy12Zq', `tributary-pieces-${process.pid}-abcdef`].sort(),
  );

  // An earlier release's folder (no process id) once it is over an hour old.
  const old = (Date.now() - 2 * 60 * 60 * 1000) / 1000;
  utimesSync(join(dir, 'tributary-pieces-Xy12Zq'), old, old);
  assert.deepEqual(await sweepAbandonedSpools(dir), ['tributary-pieces-Xy12Zq']);
  assert.ok(existsSync(join(dir, `tributary-pieces-${process.pid}-abcdef`)));
});

test("a spool's folder names its process, and a sweep while it is open leaves it", async () => {
  const spool = await openPieceSpool({ pieces: 10, bytes: 1e6, pieceBytes: 1e6 });
  try {
    await spool.add(['a'], 'kind', { n: 1 });
    await spool.pieces();
    await sweepAbandonedSpools();
    assert.deepEqual(await spool.read('a'), { kind: [{ n: 1 }] });
    const mine = readdirSync(tmpdir()).filter((name) => name.startsWith(`tributary-pieces-${process.pid}-`));
    assert.ok(mine.length >= 1, 'the open spool is named after this process');
  } finally {
    await spool.close();
  }
});

test('one piece past its byte limit fails the spool, naming the piece; the others were fine', async () => {
  const spool = await openPieceSpool({ pieces: 10, bytes: 1e6, pieceBytes: 1000 });
  try {
    await spool.add(['2026-01-01'], 'daily', { text: 'x'.repeat(500) });
    await spool.add(['2026-01-02'], 'daily', { text: 'x'.repeat(500) });
    await assert.rejects(
      spool.add(['2026-01-01'], 'epochs', { text: 'x'.repeat(600) }),
      (error: Error) =>
        error.name === 'PieceSpoolError' && /more than 1000 bytes for 2026-01-01/.test(error.message),
    );
  } finally {
    await spool.close();
  }
});
