// A hot statement built and compiled by Kysely once, then run with each call's values. Building a
// query is object churn (frozen operation nodes, visitors, a fresh SQL string) that a data read
// paid twice per request (issue 44's profile: ~10 % of the read's CPU in Kysely); the text of a
// statement depends only on its shape, so the shape is compiled once and the values swapped in.
// The database parses it once per connection too: its text is sent as a named statement.
import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './db.ts';
import { nameStatement } from './named-statements.ts';

const SLOT = '\u0000query-template-slot:';

export type QueryTemplate<Input, Row> = (db: Db, input: Input) => Promise<Row[]>;

type Compiled<Input, Row> = { query: CompiledQuery<Row>; slots: (keyof Input | null)[] };

/**
 * `build` is called once (on the first run), with a placeholder in place of each named input;
 * every placeholder must reach the compiled statement as a parameter (never inlined into its
 * text), so the statement is the same for any values. Inputs that change the statement's shape
 * are not inputs here: make one template per shape.
 */
export function queryTemplate<Input extends Record<string, unknown>, Row>(
  names: readonly (keyof Input & string)[],
  build: (db: Db, input: Input) => Compilable<Row>,
): QueryTemplate<Input, Row> {
  let compiled: Compiled<Input, Row> | undefined;
  return async (db, input) => {
    compiled ??= compile(db, names, build);
    const { query, slots } = compiled;
    const parameters = query.parameters.map((value, index) => {
      const slot = slots[index];
      return slot === null || slot === undefined ? value : input[slot];
    });
    const result = await db.executeQuery<Row>({ ...query, parameters });
    return result.rows;
  };
}

function compile<Input extends Record<string, unknown>, Row>(
  db: Db,
  names: readonly (keyof Input & string)[],
  build: (db: Db, input: Input) => Compilable<Row>,
): Compiled<Input, Row> {
  const placeholders = Object.fromEntries(names.map((name) => [name, `${SLOT}${name}`])) as unknown as Input;
  const query = build(db, placeholders).compile();
  if (query.sql.includes(SLOT)) throw new Error('query template: a value was inlined into the statement');
  // For each parameter: the input it takes, or null for a constant of the statement.
  const slots = query.parameters.map((value) =>
    typeof value === 'string' && value.startsWith(SLOT) ? (value.slice(SLOT.length) as keyof Input) : null,
  );
  for (const name of names) {
    if (!slots.includes(name)) throw new Error(`query template: input ${name} is not a parameter`);
  }
  // Run on every request: prepared once per connection (named-statements.ts).
  nameStatement(query.sql);
  return { query, slots };
}
