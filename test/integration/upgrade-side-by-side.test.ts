import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  type ChildEnvironment,
  childEnvironment,
  freePort,
  type RunningService,
  runCli,
  startService,
} from '../helpers/child-service.ts';
import { until } from '../helpers/until.ts';
import { databaseSkipReason } from '../helpers/database.ts';

/**
 * An upgrade without downtime, as a rolling deployment does it: the previous release serves on
 * PostgreSQL under a steady stream of requests, the new release's migrations run beneath it, the new
 * release starts beside it and both serve the same database; not one request fails. The previous
 * release is taken from git: the commit named by UPGRADE_FROM, else the newest release tag (`v*`)
 * before this commit, else (no release tagged yet) the newest commit along the first parents whose
 * migrations are a strict prefix of this tree's, so a migration always runs under the old code. Its tree is exported with `git archive`
 * and runs on this checkout's node_modules when its dependencies are all there.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
/** Two releases share one database: PostgreSQL, or the reason there is none. */
const noDatabase = await databaseSkipReason();

const git = (...args: string[]) =>
  execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The commit of the previous release and how it was chosen, or why there is none here. */
function previousRelease(): { commit: string; how: string } | { skip: string } {
  if (noDatabase) return { skip: noDatabase };
  try {
    if (git('rev-parse', '--is-inside-work-tree') !== 'true') return { skip: 'not a git checkout' };
  } catch {
    return {
      skip: 'no git history here (git missing, or not a checkout): the previous release cannot be built',
    };
  }
  if (git('rev-parse', '--is-shallow-repository') === 'true')
    return { skip: 'a shallow clone: the previous release is not in its history (clone without --depth)' };
  const named = process.env.UPGRADE_FROM;
  if (named)
    return { commit: git('rev-parse', '--verify', `${named}^{commit}`), how: `UPGRADE_FROM=${named}` };
  try {
    const tag = git('describe', '--tags', '--abbrev=0', '--match', 'v*', 'HEAD^');
    return { commit: git('rev-parse', `${tag}^{commit}`), how: `release tag ${tag}` };
  } catch {
    // No release tagged yet.
  }
  // Along the first parents (a merged branch's own commits are no release of this line), the newest
  // commit whose migrations are a strict prefix of this tree's: a release this one upgrades. A
  // commit between releases can hold a migration set no release had (two branches' migrations
  // merged one at a time, or one renumbered before it shipped), which the migrator rightly refuses.
  const migrationsAt = (commit: string) =>
    git('ls-tree', '--name-only', `${commit}:src/store/migrations`)
      .split('\n')
      .filter((name) => /^\d{4}_.*\.ts$/.test(name));
  const current = migrationsAt('HEAD');
  const changes = git('log', '--first-parent', '--format=%H', '--', 'src/store/migrations').split('\n');
  for (const changed of changes.filter(Boolean)) {
    const before = git('rev-parse', `${changed}^`);
    const theirs = migrationsAt(before);
    if (theirs.length < current.length && theirs.every((name, index) => current[index] === name))
      return {
        commit: before,
        how: `no release tag: the newest commit along the first parents whose migrations this one extends`,
      };
  }
  return { skip: 'no earlier commit whose migrations this tree extends' };
}

/** The dependencies of the old tree that this checkout's node_modules lacks. */
function missingDependencies(tree: string): string[] {
  const manifest = JSON.parse(readFileSync(join(tree, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  return Object.keys(manifest.dependencies ?? {}).filter(
    (name) => !existsSync(join(ROOT, 'node_modules', name, 'package.json')),
  );
}

/**
 * The old tree's node_modules: this checkout's packages (linked one by one), plus those it no
 * longer has (a retired engine, say) installed at the versions the old lockfile pins. Returns why
 * not, when the registry cannot be reached.
 */
function linkDependencies(tree: string, missing: string[]): string | undefined {
  const lock = JSON.parse(readFileSync(join(tree, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  const extra = join(tree, '.previous-dependencies');
  if (missing.length > 0) {
    const specs = missing.map(
      (name) => `${name}@${lock.packages[`node_modules/${name}`]?.version ?? 'latest'}`,
    );
    try {
      mkdirSync(extra, { recursive: true });
      execFileSync(
        'npm',
        ['install', '--prefix', extra, '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', ...specs],
        { stdio: 'pipe', timeout: 300_000 },
      );
    } catch (error) {
      return `could not install ${specs.join(', ')} from the registry: ${String((error as Error).message).split('\n')[0]}`;
    }
  }
  const modules = join(tree, 'node_modules');
  const link = (from: string, to: string) => {
    if (!existsSync(to)) symlinkSync(from, to);
  };
  mkdirSync(modules, { recursive: true });
  for (const source of [join(ROOT, 'node_modules'), join(extra, 'node_modules')]) {
    if (!existsSync(source)) continue;
    for (const entry of readdirSync(source)) {
      if (entry.startsWith('@')) {
        mkdirSync(join(modules, entry), { recursive: true });
        for (const name of readdirSync(join(source, entry)))
          link(join(source, entry, name), join(modules, entry, name));
      } else link(join(source, entry), join(modules, entry));
    }
  }
  return undefined;
}

/** Extracts `commit`'s tree into `dir` (git archive piped into tar). */
async function exportTree(commit: string, dir: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const archive = spawn('git', ['-C', ROOT, 'archive', '--format=tar', commit], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tar = spawn('tar', ['-x', '-C', dir], { stdio: ['pipe', 'ignore', 'pipe'] });
    archive.stdout.pipe(tar.stdin);
    let errors = '';
    archive.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    tar.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    tar.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`git archive | tar failed (${code}): ${errors}`)),
    );
  });
}

type Outcome = {
  /** For a read of a connection: the release that created it. */
  createdBy?: 'old' | 'new';
  target: 'old' | 'new';
  operation: string;
  phase: string;
  status: number | null;
  error?: string;
  body?: string;
  doneAt: number;
};

/**
 * Requests a developer's app makes, over and over, against one process: write (a connection link),
 * read back what either process wrote, and the read-only calls. Stops when `stop()` says so.
 */
function loadLoop(
  target: 'old' | 'new',
  url: string,
  credentials: { dev_id: string; api_key: string },
  shared: {
    outcomes: Outcome[];
    users: { id: string; by: 'old' | 'new' }[];
    phase: () => string;
    stopped: () => boolean;
    sequence: () => number;
  },
): Promise<void> {
  const headers = { 'dev-id': credentials.dev_id, 'x-api-key': credentials.api_key };
  const call = async (operation: string, path: string, init: RequestInit = {}, createdBy?: 'old' | 'new') => {
    const phase = shared.phase();
    try {
      const response = await fetch(`${url}${path}`, { ...init, headers: { ...headers, ...init.headers } });
      const body = await response.text();
      shared.outcomes.push({
        target,
        operation,
        phase,
        ...(createdBy ? { createdBy } : {}),
        status: response.status,
        doneAt: shared.sequence(),
        ...(response.ok ? {} : { body: body.slice(0, 300) }),
      });
      return response.ok ? (JSON.parse(body) as Record<string, unknown>) : null;
    } catch (error) {
      shared.outcomes.push({
        target,
        operation,
        phase,
        status: null,
        error: String(error),
        doneAt: shared.sequence(),
      });
      return null;
    }
  };
  return (async () => {
    for (let round = 0; !shared.stopped(); round++) {
      const created = await call('create a connection link', '/v2/auth/authenticateUser?resource=SANDBOX', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ reference_id: `upgrade-${target}-${round}` }),
      });
      if (typeof created?.user_id === 'string') shared.users.push({ id: created.user_id, by: target });
      // Every other round the newest connection the other release made, else any.
      const others = shared.users.filter((user) => user.by !== target);
      const someone =
        round % 2 === 0 && others.length > 0
          ? others.at(-1)
          : shared.users[(round * 7) % shared.users.length];
      if (someone) await call('read a connection', `/v2/userInfo?user_id=${someone.id}`, {}, someone.by);
      await call('list integrations', '/v2/integrations');
      await call('list subscriptions', '/v2/subscriptions');
    }
  })();
}

const release = previousRelease();

describe(
  'upgrade without downtime: the previous release and this one side by side',
  { skip: 'skip' in release ? release.skip : false },
  () => {
    let tree: string | undefined;
    let environment: ChildEnvironment | undefined;
    const running: RunningService[] = [];

    after(async () => {
      for (const service of running.reverse()) await service.stop().catch(() => undefined);
      await environment?.cleanup();
      if (tree) rmSync(tree, { recursive: true, force: true });
    });

    test('old serves while the new migrations run, then both serve: no request fails', async (t) => {
      assert.ok('commit' in release);
      t.diagnostic(`previous release: ${release.commit.slice(0, 10)} (${release.how})`);
      tree = mkdtempSync(join(tmpdir(), 'tributary-previous-'));
      await exportTree(release.commit, tree);
      const unlinked = linkDependencies(tree, missingDependencies(tree));
      if (unlinked) {
        t.skip(`the previous release's dependencies: ${unlinked} (install them, or set UPGRADE_FROM)`);
        return;
      }

      const migrationsOf = (root: string) =>
        JSON.parse(
          execFileSync(
            join(ROOT, 'node_modules/.bin/node'),
            [
              '--input-type=module',
              '-e',
              "const { migrations } = await import('./src/store/migrations/index.ts'); process.stdout.write(JSON.stringify(Object.keys(migrations)))",
            ],
            { cwd: root, encoding: 'utf8' },
          ),
        ) as string[];
      const oldMigrations = migrationsOf(tree);
      const newMigrations = migrationsOf(ROOT);
      const added = newMigrations.filter((name) => !oldMigrations.includes(name));
      t.diagnostic(`migrations the upgrade applies: ${added.join(', ') || 'none'}`);

      // The previous release, alone: it creates the schema as it knew it (an empty database, not
      // the run's template: that holds this tree's migrations, which the older code refuses).
      environment = await childEnvironment({ LOG_LEVEL: 'warn' }, { database: 'empty' });
      const oldEnv = environment.env;
      const old = await startService(oldEnv, ['serve'], 120_000, tree);
      running.push(old);
      const created = await runCli(
        ['developers', 'create', '--name', 'Upgrade App', '--environment', 'sandbox', '--json'],
        oldEnv,
        tree,
      );
      assert.equal(created.code, 0, created.stderr);
      const credentials = JSON.parse(created.stdout) as { dev_id: string; api_key: string };

      let phase = 'old alone';
      let stopped = false;
      let sequence = 0;
      const shared = {
        outcomes: [] as Outcome[],
        users: [] as { id: string; by: 'old' | 'new' }[],
        phase: () => phase,
        stopped: () => stopped,
        sequence: () => ++sequence,
      };
      const done = (target: string, from: number) =>
        shared.outcomes.filter((outcome) => outcome.target === target && outcome.doneAt > from).length;
      const loops = [
        loadLoop('old', old.url, credentials, shared),
        loadLoop('old', old.url, credentials, shared),
      ];
      try {
        await until('the previous release to answer requests', () => done('old', 0), {
          done: (n) => n >= 20,
        });

        // The new release's migrations, under the old release's traffic.
        phase = 'migrating';
        const migrationStarted = sequence;
        const migrated = await runCli(['migrate'], oldEnv);
        assert.equal(migrated.code, 0, `migrate: ${migrated.stderr}`);
        const migrationEnded = sequence;
        t.diagnostic(`requests answered while the migrations ran: ${migrationEnded - migrationStarted}`);
        assert.ok(
          migrationEnded > migrationStarted,
          'the previous release answered requests while the migrations ran',
        );

        phase = 'old on the migrated schema';
        const afterMigration = sequence;
        await until(
          'the previous release to answer on the migrated schema',
          () => done('old', afterMigration),
          {
            done: (n) => n >= 20,
          },
        );

        // The new release starts beside it (a rolling update's surge), on another port.
        phase = 'both';
        const port = String(await freePort());
        const newEnv = { ...oldEnv, PORT: port, PUBLIC_URL: `http://127.0.0.1:${port}` };
        const current = await startService(newEnv, ['serve']);
        running.push(current);
        const bothFrom = sequence;
        loops.push(
          loadLoop('new', current.url, credentials, shared),
          loadLoop('new', current.url, credentials, shared),
        );
        await until(
          'both releases to answer requests side by side',
          () => ({ old: done('old', bothFrom), new: done('new', bothFrom) }),
          { done: (n) => n.old >= 40 && n.new >= 40 },
        );
      } finally {
        stopped = true;
        await Promise.all(loops);
      }

      const failed = shared.outcomes.filter((outcome) => outcome.status === null || outcome.status >= 300);
      const counts = Object.entries(
        Object.groupBy(shared.outcomes, (outcome) => `${outcome.target} during "${outcome.phase}"`),
      ).map(([key, list]) => `${key}: ${list?.length}`);
      t.diagnostic(`requests: ${counts.join('; ')}`);
      assert.deepEqual(failed, [], 'not one request failed');
      // What each release wrote, the other read.
      const reads = shared.outcomes.filter(
        (outcome) => outcome.operation === 'read a connection' && outcome.phase === 'both',
      );
      assert.ok(
        reads.some((outcome) => outcome.target === 'new') &&
          reads.some((outcome) => outcome.target === 'old'),
      );
    });
  },
);
