// The child process that copies an earlier release's PGlite data directory into the embedded
// PostgreSQL (from-pglite.ts starts it): PGlite opens the old directory, PGlite's own pg_dump
// (@electric-sql/pglite-tools) dumps it as SQL, and the dump is replayed into the new database in
// batches of statements. PGlite and its tools are not the service's dependencies: from-pglite.ts
// installs them (pinned) into a tools directory given as argv[2].
//
//   node pglite-copy-child.ts <tools dir> <old pgdata> <connection string>
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const BATCH_CHARS = 1_000_000;

const [toolsDir, oldPgdata, connectionString] = process.argv.slice(2);
if (!toolsDir || !oldPgdata || !connectionString)
  throw new Error('usage: pglite-copy-child.ts <tools dir> <old pgdata> <connection string>');

const fromTools = createRequire(join(toolsDir, 'package.json'));
const load = async (name: string) => import(pathToFileURL(fromTools.resolve(name)).href);
const { PGlite } = await load('@electric-sql/pglite');
const { pgDump } = await load('@electric-sql/pglite-tools/pg_dump');

// PGlite's pg_dump writes rows as INSERT statements (it passes --inserts itself) into a file it
// returns whole: the dump is as large as the data, held once, and replayed in batches.
const pglite = await PGlite.create({ dataDir: oldPgdata });
const dump: Blob = await pgDump({ pg: pglite, args: ['--no-owner', '--no-privileges'] });
await pglite.close();

const client = new pg.Client({ connectionString });
await client.connect();

/**
 * Splits SQL text into statements at semicolons outside quotes ('…', "…", $tag$…$tag$) and
 * comments (-- to the end of the line), and drops psql's own commands (lines starting with a
 * backslash, such as \restrict), which are not SQL.
 */
function* statementsOf(text: string): Generator<string> {
  let start = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '\\' && (i === 0 || text[i - 1] === '\n')) {
      // Never SQL outside quotes: with the comments before it, it is dropped.
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
      start = i;
    } else if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      i = end < 0 ? n : end + 1; // a doubled quote is two quoted strings side by side: same result
    } else if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
    } else if (c === '$') {
      const tag = /^\$[A-Za-z_0-9]*\$/.exec(text.slice(i, i + 64))?.[0];
      if (tag) {
        const end = text.indexOf(tag, i + tag.length);
        i = end < 0 ? n : end + tag.length;
      } else i++;
    } else if (c === ';') {
      i++;
      const statement = text.slice(start, i);
      start = i;
      if (statement.trim()) yield statement;
    } else i++;
  }
  const rest = text.slice(start);
  if (
    rest.trim() &&
    rest
      .trim()
      .replace(/^--.*$/gm, '')
      .trim()
  )
    yield rest;
}

let batch = '';
let statements = 0;
for (const statement of statementsOf(await dump.text())) {
  statements++;
  batch += statement;
  if (batch.length >= BATCH_CHARS) {
    await client.query(batch);
    batch = '';
  }
}
if (batch.trim()) await client.query(batch);
await client.end();
process.stdout.write(`${JSON.stringify({ statements, dumpBytes: dump.size })}\n`);
