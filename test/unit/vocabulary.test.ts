// One vocabulary (ARCHITECTURE.md, Glossary): each word means one thing. The names retired by the
// renames of issue 27 must not come back in src/. "user" stays only where the vendor's wire
// contract says it (`user_id`, `/v2/users`, payload fields and their schemas); the identifiers
// below are the internal names that used it for a connection, and the folders and files that
// used "connections" and "sync" for other things. Issue 43 renamed the delivery engine's folder
// (features/webhooks → features/delivery: the webhook is one destination kind among several).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Released migrations are history: they created and filled `users` and are never edited. */
const isReleasedMigration = (file: string) => /^src\/store\/migrations\/\d{4}_[\w-]+\.ts$/.test(file);

/** Identifiers that named a connection "user", or named other things "connections" or "sync". */
const retiredIdentifiers = [
  'UserRow',
  'UsersTable',
  'UserStatus',
  'UsersService',
  'createUsersService',
  'usersRepo',
  'insertPendingUser',
  'findUser',
  'findUserById',
  'findUsersByIds',
  'findUsersByReference',
  'listConnectedUsers',
  'countConnectedUsers',
  'findUsersWithAccount',
  'updateUser',
  'reassignPendingUser',
  'activateUser',
  'deleteUser',
  'listRecentUsers',
  'findUserForDeveloper',
  'withheldByUserState',
  'reusablePendingUser',
  'pendingUserFor',
  'lockUser',
  'ConnectionsDeps',
  'ConnectionsInternals',
  'createSync',
  'SyncDeps',
  'defineSyncJobs',
  'syncRecurringJobs',
  'defineConnectionJobs',
  'registerConnectionRoutes',
];

/** Other retired spellings: the table's old name in queries, the context key, old paths. */
const retiredPatterns: { name: string; pattern: RegExp }[] = [
  {
    name: "the table 'users' in a query",
    pattern:
      /\b(selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin)\(\s*'users'/,
  },
  { name: "a column of 'users'", pattern: /'users\.[a-z_*]+'/ },
  { name: 'the table users in SQL', pattern: /\b(UPDATE|FROM|JOIN|INTO|TABLE) users\b/ },
  { name: 'ctx.users', pattern: /\bctx\.users\b/ },
  { name: 'the users feature', pattern: /features\/users\b/ },
  { name: 'the sync feature', pattern: /features\/sync\b/ },
  { name: 'the webhooks feature (now features/delivery)', pattern: /features\/webhooks\b/ },
  { name: "data's sync module", pattern: /data\/sync\.ts|from '\.\/sync\.ts'/ },
];

/** Paths that must not exist: each word in a folder or file name is the glossary's word. */
const retiredPaths = [
  'src/features/users',
  'src/features/sync',
  'src/features/data/sync.ts',
  'src/runtime/workers/sync.ts',
  'src/runtime/workers/connections.ts',
  'src/http/routes/connections.ts',
  'src/features/webhooks',
  'src/runtime/workers/webhooks.ts',
];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|js|mjs|cjs)$/.test(entry)) out.push(path);
  }
  return out;
}

/** Every place in src/ (outside released migrations) where `pattern` matches a line. */
function findings(pattern: RegExp): string[] {
  const found: string[] = [];
  for (const path of sourceFiles(join(root, 'src'))) {
    const file = relative(root, path).split('\\').join('/');
    if (isReleasedMigration(file)) continue;
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (pattern.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
  }
  return found;
}

describe('one vocabulary in src/', () => {
  for (const word of retiredIdentifiers) {
    it(`no ${word}`, () => {
      assert.deepEqual(findings(new RegExp(`(?<![\\w$])${word}(?![\\w$])`)), []);
    });
  }
  for (const { name, pattern } of retiredPatterns) {
    it(`no ${name}`, () => assert.deepEqual(findings(pattern), []));
  }
  it('no folder or file named with a retired word', () => {
    assert.deepEqual(
      retiredPaths.filter((path) => existsSync(join(root, path))),
      [],
    );
  });
  it('the connections table is declared by the connections feature', () => {
    const tables = readFileSync(join(root, 'src/features/connections/tables.ts'), 'utf8');
    assert.match(tables, /\bconnections: ConnectionsTable;/);
  });
  it('the search finds a planted old name (the check is not vacuous)', () => {
    const planted = "const rows = await db.selectFrom('users').selectAll(); type R = UserRow;";
    assert.ok(retiredPatterns[0]!.pattern.test(planted));
    assert.ok(new RegExp('(?<![\\w$])UserRow(?![\\w$])').test(planted));
  });
});
