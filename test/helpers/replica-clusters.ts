// A PostgreSQL primary and a streaming replica of it, made for one test with Debian's PostgreSQL
// tools (initdb, pg_ctl, pg_basebackup under /usr/lib/postgresql/<version>/bin), in a temporary
// directory, on two free ports of 127.0.0.1, removed afterwards.
//
// Why a primary of its own rather than the server at DATABASE_URL: a base backup copies the whole
// server (every database other test runs left there), and that server's pg_hba.conf need not allow
// replication connections (the one on the project's machine does not). A cluster of our own has
// both, costs a few seconds, and leaves the shared server untouched.
//
// initdb and postgres refuse to run as root: as root, every tool runs as the `postgres` OS user
// (runuser), which owns the directory.
import { execFile, execFileSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  appendFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './child-service.ts';

const run = promisify(execFile);
const TOOLS = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'];

export type ReplicaClusters = {
  primaryUrl: string;
  replicaUrl: string;
  /** Server log lines, for a failing test's message. */
  logs(): string;
  close(): Promise<void>;
};

function toolsDirectory(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (TOOLS.every((tool) => existsSync(join(bin, tool)))) return bin;
  }
  return null;
}

function postgresAccount(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

const asRoot = () => process.getuid?.() === 0;

/** Why the clusters cannot be made here, or false when they can. */
export function replicaSkipReason(): string | false {
  if (!toolsDirectory())
    return `needs PostgreSQL server tools (${TOOLS.join(', ')}) under /usr/lib/postgresql/<version>/bin (Debian postgresql package)`;
  if (asRoot() && !postgresAccount())
    return 'runs as root, and initdb/postgres refuse root: needs a `postgres` OS user to run them as';
  if (asRoot() && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser'))
    return 'runs as root and has no runuser to start PostgreSQL as the postgres user';
  return false;
}

export async function startReplicaClusters(): Promise<ReplicaClusters> {
  const bin = toolsDirectory()!;
  const account = asRoot() ? postgresAccount()! : null;
  const dir = mkdtempSync(join(tmpdir(), 'tributary-replica-'));
  if (account) chownSync(dir, account.uid, account.gid);
  const tool = (name: string, args: string[]) =>
    account
      ? run('runuser', ['-u', 'postgres', '--', join(bin, name), ...args], { cwd: dir })
      : run(join(bin, name), args, { cwd: dir });
  const primary = join(dir, 'primary');
  const replica = join(dir, 'replica');
  const started: string[] = [];
  const logs = () =>
    ['primary.log', 'replica.log']
      .map((file) => join(dir, file))
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
  const close = async () => {
    for (const data of started.reverse()) {
      await tool('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [primaryPort, replicaPort] = [await freePort(), await freePort()];
    await tool('initdb', ['-D', primary, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    // Written by us, as root maybe: the files stay the postgres user's (appendFileSync keeps owner).
    appendFileSync(
      join(primary, 'postgresql.conf'),
      [
        `port = ${primaryPort}`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = '${dir}'`,
        'wal_level = replica',
        'max_wal_senders = 4',
        'shared_buffers = 16MB',
        'fsync = off',
        '',
      ].join('\n'),
    );
    appendFileSync(join(primary, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
    await tool('pg_ctl', ['-D', primary, '-l', join(dir, 'primary.log'), '-w', '-t', '60', 'start']);
    started.push(primary);
    // -R writes standby.signal and primary_conninfo: the copy starts as a streaming replica.
    await tool('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres'],
      ...['-D', replica, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
    ]);
    // A query on the replica is never cancelled for a conflict with recovery: the primary keeps
    // the rows it reads (feedback), and replay waits for it (on a loaded machine a query can take
    // longer than the default 30 s of patience, and the test pauses replay on purpose).
    appendFileSync(
      join(replica, 'postgresql.conf'),
      `port = ${replicaPort}\nhot_standby = on\nhot_standby_feedback = on\nmax_standby_streaming_delay = -1\n`,
    );
    await tool('pg_ctl', ['-D', replica, '-l', join(dir, 'replica.log'), '-w', '-t', '60', 'start']);
    started.push(replica);
    return {
      primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
      replicaUrl: `postgres://postgres@127.0.0.1:${replicaPort}/postgres`,
      logs,
      close,
    };
  } catch (error) {
    const detail = logs();
    await close();
    throw new Error(`could not start a primary and its replica: ${String(error)}\n${detail}`, {
      cause: error,
    });
  }
}
