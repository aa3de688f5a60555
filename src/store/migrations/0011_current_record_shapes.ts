import { type Kysely, sql } from 'kysely';
import { upgradeRecord } from '../../model/legacy-shapes.ts';
import { mergeSamples, splitSamples } from '../../model/record-text.ts';
import { samplePaths } from '../../model/strip-samples.ts';

/**
 * Stored records follow the vendor's current schema (issue 14): rows written before it may still
 * hold the older contract's shapes (estimated_fitness_age "21", contributor arrays, the string
 * menstrual phase, string cycle length and prediction flag, drink_unit "ml"). Each such row is
 * merged, brought to the current shape by the same function the write path uses
 * (model/legacy-shapes.ts) and split again, so reads keep streaming stored text unchanged.
 *
 * Only rows whose text shows an older shape are read, a page at a time in key order, so the
 * migration's cost follows the rows it changes, not the size of the table.
 */
const OLDER_SHAPES: Record<string, { column: 'summary' | 'samples'; pattern: string }[]> = {
  body: [{ column: 'summary', pattern: '%"estimated_fitness_age":"%' }],
  daily: [{ column: 'summary', pattern: '%"contributor_name"%' }],
  sleep: [{ column: 'summary', pattern: '%"contributor_name"%' }],
  activity: [{ column: 'summary', pattern: '%"contributor_name"%' }],
  menstruation: [
    { column: 'summary', pattern: '%"current_phase":"%' },
    { column: 'summary', pattern: '%"cycle_length_days":"%' },
    { column: 'summary', pattern: '%"is_predicted_cycle":"%' },
  ],
  nutrition: [{ column: 'samples', pattern: '%"drink_unit":"%' }],
};

const PAGE = 200;

type Row = {
  user_id: string;
  identity_key: string;
  summary: string;
  samples: string | null;
  sample_splices: number[] | null;
};

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [type, patterns] of Object.entries(OLDER_SHAPES)) {
    const paths = samplePaths[type as keyof typeof samplePaths];
    const matches = sql.join(
      patterns.map(({ column, pattern }) => sql`${sql.ref(column)}::text LIKE ${pattern}`),
      sql` OR `,
    );
    let after: { userId: string; key: string } | null = null;
    for (;;) {
      const keyset: ReturnType<typeof sql> = after
        ? sql`AND (user_id, identity_key) > (${after.userId}::uuid, ${after.key})`
        : sql``;
      const { rows } = await sql<Row>`
        SELECT user_id::text AS user_id, identity_key, summary::text AS summary,
               samples::text AS samples, sample_splices
        FROM data_records
        WHERE type = ${type} AND (${matches}) ${keyset}
        ORDER BY user_id, identity_key
        LIMIT ${PAGE}`.execute(db);
      for (const row of rows) {
        const record = JSON.parse(mergeSamples(row.summary, row.samples, row.sample_splices)) as unknown;
        const upgraded = upgradeRecord(type, record);
        if (upgraded === record) continue;
        const split = splitSamples(upgraded, paths);
        await sql`
          UPDATE data_records
          SET summary = ${split.summary}::json, samples = ${split.samples}::json,
              sample_splices = ${split.splices}
          WHERE user_id = ${row.user_id}::uuid AND type = ${type} AND identity_key = ${row.identity_key}`.execute(
          db,
        );
      }
      if (rows.length < PAGE) break;
      const last = rows[rows.length - 1]!;
      after = { userId: last.user_id, key: last.identity_key };
    }
  }
}
