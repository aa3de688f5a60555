// Table ownership (ARCHITECTURE.md, "Who owns which table") is a rule, not a wish: the check that
// `npm run lint` runs on the real tree fails on planted queries of another feature's table (small
// planted trees here; the real tree is `npm run lint`'s, not a unit test's).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkTableOwnership } from '../../scripts/check-table-ownership.ts';

const TABLES = {
  'src/features/connections/tables.ts':
    "declare module '../../store/schema.ts' {\n  interface Database {\n    users: { id: string };\n  }\n}\nexport {};\n",
  'src/features/data/tables.ts':
    "declare module '../../store/schema.ts' {\n  interface Database {\n    data_records: { user_id: string };\n  }\n}\nexport {};\n",
  'src/features/connections/repo.ts': "export const own = (db: any) => db.selectFrom('users').selectAll();\n",
};

function plantedTree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-tables-'));
  for (const [path, text] of Object.entries({ ...TABLES, ...files })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('table ownership', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const violationsIn = (files: Record<string, string>) => {
    const dir = plantedTree(files);
    dirs.push(dir);
    return checkTableOwnership(dir).violations.map(
      (v) => `${v.file}:${v.line} ${v.via} ${v.table} ${v.owner}`,
    );
  };

  it("the owner's own queries pass", () => {
    assert.deepEqual(violationsIn({}), []);
  });

  it('a planted selectFrom, join, write and raw sql on another feature’s table each fail', () => {
    const violations = violationsIn({
      'src/features/data/repo.ts': [
        "export const a = (db: any) => db.selectFrom('users as u').selectAll();",
        "export const b = (db: any) => db.selectFrom('data_records').innerJoin('users', 'users.id', 'data_records.user_id');",
        "export const c = (db: any) => db.updateTable('users').set({ id: 'x' });",
        'export const d = (db: any, sql: any) => sql`SELECT id FROM users WHERE id = ${1}`.execute(db);',
        "export const e = (db: any) => db.selectFrom('data_records').selectAll();",
      ].join('\n'),
    });
    assert.deepEqual(violations, [
      'features/data/repo.ts:1 selectFrom users features/connections',
      'features/data/repo.ts:2 innerJoin users features/connections',
      'features/data/repo.ts:3 updateTable users features/connections',
      'features/data/repo.ts:4 sql users features/connections',
    ]);
  });

  it('a table declared by two modules fails', () => {
    const violations = violationsIn({
      'src/features/billing/more-tables.ts':
        "declare module '../../store/schema.ts' {\n  interface Database {\n    users: { id: string };\n  }\n}\nexport {};\n",
    });
    assert.equal(violations.length, 1);
    assert.match(violations[0]!, /declared twice users/);
  });
});
