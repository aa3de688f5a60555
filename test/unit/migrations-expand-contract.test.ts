// Upgrades without downtime need migrations that the previous release's processes survive: during
// a rollout (and after a rollback) they run against the migrated database. So a migration only
// expands — adds tables, nullable or defaulted columns, indexes — and anything that would break
// the previous release's reads or writes (dropping or renaming what it uses, changing a type,
// a new NOT NULL without a default, a new CHECK or UNIQUE it may violate) is a contraction: it
// is allowed only when listed in CONTRACTIONS below, with the reason it is safe now (what no
// supported release uses any more). docs/operating.md, "Upgrading", says the same to operators.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

const MIGRATIONS_DIR = new URL('../../src/store/migrations/', import.meta.url);

/**
 * Migrations up to here were written before releases were versioned and rolled out (0.x, every
 * process stopped for an upgrade). Five of them contract, as these rules find: 0008 and 0015
 * drop columns, 0023 changes a column's type, 0024 renames `users`, 0025 rebuilds
 * `data_records`; a rolling upgrade across any of them would fail the previous release's requests.
 */
const LAST_UNVERSIONED = '0025_partitioned_records';

/** Contractions after that, each with why no supported release still needs what it removes. */
const CONTRACTIONS: Record<string, string> = {};

const RULES: readonly [RegExp, string][] = [
  [/\bDROP\s+(TABLE|COLUMN|SCHEMA|TYPE|VIEW|FUNCTION)\b/i, 'drops something the previous release may use'],
  [/\bRENAME\b/i, 'renames something the previous release uses by its old name'],
  [
    /\bALTER\s+COLUMN\s+"?\w+"?\s+(SET\s+DATA\s+)?TYPE\b/i,
    "changes a column's type under the previous release",
  ],
  [/\bSET\s+NOT\s+NULL\b/i, "makes a column required that the previous release's writes may leave empty"],
  [
    /\bADD\s+(COLUMN\s+)?(IF\s+NOT\s+EXISTS\s+)?"?\w+"?\s+[^,;`]*\bNOT\s+NULL\b(?![^,;`]*\bDEFAULT\b)/i,
    "adds a required column without a default: the previous release's inserts fail",
  ],
  [
    /\bADD\s+(CONSTRAINT\s+"?\w+"?\s+)?(CHECK|UNIQUE)\b/i,
    "adds a constraint the previous release's writes may violate",
  ],
  [
    /\.(dropTable|dropColumn|dropType|dropView|renameTo|renameColumn|setDataType|setNotNull)\(/,
    'Kysely schema change that contracts',
  ],
];

/** The contracting statements in a migration's `up` (its `down` undoes, and may drop freely). */
export function contractions(source: string): string[] {
  const start = source.search(/export\s+async\s+function\s+up\b/);
  const end = source.search(/export\s+async\s+function\s+down\b/);
  const up = start < 0 ? source : source.slice(start, end > start ? end : undefined);
  // Comments explain; they do not run.
  const code = up.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
  const found: string[] = [];
  for (const [pattern, why] of RULES) {
    const match = pattern.exec(code);
    if (match) found.push(`${match[0].trim()} (${why})`);
  }
  return found;
}

describe('migrations expand; contractions are declared', () => {
  test('the rules see contractions, in SQL and in Kysely calls, and pass additions', () => {
    for (const contracting of [
      'await sql`ALTER TABLE connections DROP COLUMN provider_user_id`.execute(db);',
      'await sql`ALTER TABLE connections RENAME TO links`.execute(db);',
      'await sql`ALTER TABLE data_records ALTER COLUMN payload TYPE text`.execute(db);',
      'await sql`ALTER TABLE orders ALTER COLUMN status SET NOT NULL`.execute(db);',
      'await sql`ALTER TABLE orders ADD COLUMN region text NOT NULL`.execute(db);',
      'await sql`ALTER TABLE orders ADD CONSTRAINT positive CHECK (total > 0)`.execute(db);',
      "await db.schema.alterTable('orders').dropColumn('region').execute();",
      "await db.schema.dropTable('orders').execute();",
    ])
      assert.notDeepEqual(contractions(`export async function up(db) {\n${contracting}\n}`), [], contracting);

    for (const expanding of [
      'await sql`CREATE TABLE audit (id bigserial PRIMARY KEY, at timestamptz NOT NULL)`.execute(db);',
      'await sql`ALTER TABLE orders ADD COLUMN region text`.execute(db);',
      'await sql`ALTER TABLE orders ADD COLUMN tries integer NOT NULL DEFAULT 0`.execute(db);',
      'await sql`CREATE INDEX orders_by_region ON orders (region)`.execute(db);',
      '// we do not DROP TABLE anything here',
    ])
      assert.deepEqual(contractions(`export async function up(db) {\n${expanding}\n}`), [], expanding);

    assert.deepEqual(
      contractions(
        'export async function up(db) {}\nexport async function down(db) { await sql`DROP TABLE x`; }',
      ),
      [],
      'down() may drop',
    );
  });

  test('every migration after the unversioned ones only expands, unless declared', () => {
    const names = readdirSync(MIGRATIONS_DIR)
      .filter((file) => /^\d{4}_.+\.ts$/.test(file))
      .map((file) => file.replace(/\.ts$/, ''))
      .sort();
    assert.ok(names.includes(LAST_UNVERSIONED), `${LAST_UNVERSIONED} exists`);
    const problems: string[] = [];
    for (const name of names.filter((candidate) => candidate > LAST_UNVERSIONED)) {
      const found = contractions(readFileSync(new URL(`${name}.ts`, MIGRATIONS_DIR), 'utf8'));
      if (found.length > 0 && !CONTRACTIONS[name])
        problems.push(
          `${name}: ${found.join('; ')}. Split it: expand now, contract in a later release (then list it in CONTRACTIONS)`,
        );
    }
    for (const name of Object.keys(CONTRACTIONS))
      if (!names.includes(name)) problems.push(`CONTRACTIONS names ${name}, which is not a migration`);
    assert.deepEqual(problems, []);
  });
});
