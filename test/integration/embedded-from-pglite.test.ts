import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { installPgliteTools } from '../../src/store/embedded/from-pglite.ts';
import { childEnvironment, runCli, startService } from '../helpers/child-service.ts';

/**
 * A DATA_DIR made by the previous release, on PGlite, starts on this release with its data: the
 * previous release (the last commit whose package.json still depends on PGlite) is exported with
 * `git archive`, runs on this checkout's node_modules plus the PGlite the move-over itself installs
 * from the npm registry, and creates a developer; this release's first start copies the data into
 * the embedded PostgreSQL, keeps the old directory aside and says so, and the developer's key
 * authenticates.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const git = (...args: string[]) =>
  execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

function previousRelease(): { commit: string } | { skip: string } {
  try {
    if (git('rev-parse', '--is-shallow-repository') === 'true')
      return { skip: 'a shallow clone: the previous release is not in its history' };
    // The newest change of package.json that named PGlite is the one that removed it.
    const removal = git('log', '-1', '--format=%H', '-G', '@electric-sql/pglite"', '--', 'package.json');
    if (!removal) return { skip: 'no release on PGlite in the history' };
    return { commit: git('rev-parse', `${removal}^`) };
  } catch {
    return { skip: 'no git history here: the previous release cannot be built' };
  }
}

async function exportTree(commit: string, dir: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const archive = spawn('git', ['-C', ROOT, 'archive', '--format=tar', commit], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const tar = spawn('tar', ['-x', '-C', dir], { stdio: ['pipe', 'inherit', 'inherit'] });
    archive.stdout.pipe(tar.stdin);
    tar.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`git archive | tar failed (${code})`)),
    );
  });
}

const release = previousRelease();

/**
 * This machine's settings for reaching the npm registry (a CA bundle, a proxy, npm's own registry
 * settings), which the service's npm needs as an operator's shell would give them: the move-over
 * installs PGlite's tools with npm. The child's environment is otherwise built from scratch
 * (child-service.ts); without these, behind a TLS-inspecting proxy, the service's npm retried the
 * registry for ~140 s before it fell back to its cache, the longest wait of the whole suite.
 */
const REGISTRY_SETTINGS =
  /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|HTTPS?_PROXY|NO_PROXY|npm_config_(registry|cafile|ca|proxy|https_proxy|noproxy|strict_ssl))$/i;
const registrySettings = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && REGISTRY_SETTINGS.test(entry[0]),
    ),
  );

describe('a DATA_DIR of the previous release (PGlite)', { timeout: 900_000 }, () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'tributary-from-pglite-'));
    // Run as root, the embedded PostgreSQL runs as an unprivileged user, who must pass through here.
    chmodSync(root, 0o711);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test(
    'starts on this release with its data, the old directory kept aside',
    'skip' in release ? { skip: release.skip } : {},
    async () => {
      if ('skip' in release) return;
      const tree = join(root, 'previous');
      mkdirSync(tree);
      await exportTree(release.commit, tree);
      // The previous release runs on this checkout's packages plus the PGlite it was made with.
      const tools = join(root, 'tools');
      await installPgliteTools(tools);
      mkdirSync(join(tree, 'node_modules'));
      for (const name of readdirSync(join(ROOT, 'node_modules')))
        if (name !== '@electric-sql')
          symlinkSync(join(ROOT, 'node_modules', name), join(tree, 'node_modules', name));
      symlinkSync(join(tools, 'node_modules', '@electric-sql'), join(tree, 'node_modules', '@electric-sql'));

      const environment = await childEnvironment({ DATABASE_URL: '', DATA_DIR: join(root, 'data') });
      const env = { ...environment.env, ...registrySettings() };
      delete env.DATABASE_URL;
      delete env.DATABASE_SCHEMA;
      delete env.ENCRYPTION_KEY;
      try {
        const created = await runCli(
          ['developers', 'create', '--name', 'Made on PGlite', '--environment', 'sandbox', '--json'],
          env,
          tree,
        );
        assert.equal(created.code, 0, created.stderr);
        const developer = JSON.parse(created.stdout) as { dev_id: string; api_key: string };
        assert.ok(
          existsSync(join(env.DATA_DIR!, 'pgdata', 'PG_VERSION')),
          'the previous release wrote PGlite data',
        );

        const service = await startService(env, ['serve'], 600_000);
        try {
          const response = await fetch(`${service.url}/v2/webhook`, {
            headers: { 'dev-id': developer.dev_id, 'x-api-key': developer.api_key },
          });
          assert.equal(response.status, 200, 'the developer and its key came over');
          assert.match(
            service.output(),
            /moved the earlier release's embedded data \(PGlite\) into the embedded PostgreSQL/,
          );
        } finally {
          assert.equal(await service.stop('SIGTERM'), 0, service.output());
        }
        const names = readdirSync(env.DATA_DIR!);
        assert.ok(
          names.some((name) => name.startsWith('pgdata.pglite-')),
          `kept aside: ${names.join(', ')}`,
        );
        assert.ok(!names.includes('pgdata') && !names.includes('.pglite-tools'), names.join(', '));

        // A later start has nothing to move: the data is simply there.
        const again = await startService(env);
        try {
          assert.doesNotMatch(again.output(), /moved the earlier release's embedded data/);
          const listed = await runCli(['developers', 'list', '--json'], env);
          assert.match(listed.stdout, new RegExp(developer.dev_id));
        } finally {
          await again.stop('SIGTERM');
        }
      } finally {
        await environment.cleanup();
      }
    },
  );
});
