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

export type StoredRecordPage = { records: (StoredRecordValue & { anchorAt: Date })[]; next: Keyset | null };

/**
 * One page of a range, samples included, parsed, after `after` (null: from the start), optionally
 * only records written since an instant; `next` is where the following page starts (null: none).
 * For readers that stream a long range a page at a time and keep their place (the FHIR export).
 */
export async function storedRecordPage(
  db: Db,
  range: {
    userId: string;
    type: string;
    filter: RecordFilter;
    since?: Date;
    after: Keyset | null;
    limit: number;
  },
): Promise<StoredRecordPage> {
  const rows = await pageRecords(db, { ...range, withSamples: true });
  const records = rows.map((row) => ({
    key: row.identity_key,
    anchorAt: row.anchor_at,
    record: JSON.parse(mergeSamples(row.summary, row.samples, row.sample_splices)) as Record<string, unknown>,
  }));
  const last = rows.at(-1);
  return {
    records,
    next: rows.length < range.limit || !last ? null : { at: last.anchor_at, key: last.identity_key },
  };
}
