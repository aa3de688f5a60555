// Stored records as values, for code that computes with them (the merged view) rather than
// passing their text through: every record of a range, samples included, parsed, with its
// identity key. Read in pages so that one statement never holds a long window's samples at once.
import type { Db } from '../../store/db.ts';
import type { RecordFilter } from './params.ts';
import { mergeSamples } from './records.ts';
import { type Keyset, pageRecords } from './repo.ts';

export type StoredRecordValue = { key: string; record: Record<string, unknown> };

const PAGE = 64;

export async function storedRecordsIn(
  db: Db,
  range: { userId: string; type: string; filter: RecordFilter },
): Promise<StoredRecordValue[]> {
  const records: StoredRecordValue[] = [];
  let after: Keyset | null = null;
  for (;;) {
    const rows = await pageRecords(db, { ...range, after, limit: PAGE, withSamples: true });
    for (const row of rows) {
      const text = mergeSamples(row.summary, row.samples, row.sample_splices);
      records.push({ key: row.identity_key, record: JSON.parse(text) as Record<string, unknown> });
    }
    if (rows.length < PAGE) return records;
    const last = rows.at(-1)!;
    after = { at: last.anchor_at, key: last.identity_key };
  }
}
