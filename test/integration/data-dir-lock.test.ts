import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { LOCK_FILE, tryLockDataDir } from '../../src/store/data-dir-lock.ts';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-lock-'));
  dirs.push(dir);
  return dir;
};
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const writeLock = (dir: string, pid: number) =>
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid, command: 'serve', startedAt: '' }), {
    mode: 0o600,
  });

test('the lock is exclusive, 0600 and released by its owner only', () => {
  const dir = freshDir();
  const first = tryLockDataDir(dir, { command: 'serve' });
  assert.ok(first.acquired);
  assert.equal(statSync(join(dir, LOCK_FILE)).mode & 0o777, 0o600);
  assert.equal(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).command, 'serve');

  // Held by a live process (a child that sleeps): refused, and the owner's record is returned.
  const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
  try {
    const other = freshDir();
    writeLock(other, sleeper.pid!);
    const refused = tryLockDataDir(other, { command: 'developers' });
    assert.equal(refused.acquired, false);
    assert.equal(!refused.acquired && refused.owner.pid, sleeper.pid);
    assert.ok(existsSync(join(other, LOCK_FILE)), 'a live owner keeps its lock');
  } finally {
    sleeper.kill('SIGKILL');
  }

  first.lock.release();
  assert.equal(existsSync(join(dir, LOCK_FILE)), false);
});

test('a lock whose process is gone, or that cannot be read, is taken over', () => {
  const deadPid = Number(
    spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout,
  );
  const dir = freshDir();
  writeLock(dir, deadPid);
  const taken = tryLockDataDir(dir, { command: 'developers' });
  assert.ok(taken.acquired);
  assert.equal(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid, process.pid);
  taken.lock.release();

  writeFileSync(join(dir, LOCK_FILE), 'not json');
  const overGarbage = tryLockDataDir(dir, { command: 'developers' });
  assert.ok(overGarbage.acquired);
  overGarbage.lock.release();
});
