// What a fetch brought of a day waits for its batch's locked section as JSON text
// (features/day-companions/store.ts `broughtSummaries`). A backfill's answers repeat summaries (one
// fetch's callbacks can overlap: in the 30-day backfill bench each summary came about three times),
// and serializing every copy before picking the one to keep was most of the garbage the day
// sections added to that backfill: strings as long as a day's summaries, made and dropped at
// once. Only the copy kept is serialized now; which copy is kept is unchanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { broughtSummaries } from '../../src/features/day-companions/store.ts';
import type { DaySummary } from '../../src/provider-kit/day-companions.ts';

/** A summary that counts how often it is serialized. */
function counted(serialized: Map<string, number>, label: string, body: Record<string, unknown>) {
  return {
    toJSON() {
      serialized.set(label, (serialized.get(label) ?? 0) + 1);
      return body;
    },
  };
}

test('of a day’s repeated summaries, only the copy kept is serialized', () => {
  const serialized = new Map<string, number>();
  const copy = (label: string, kind: string, id: string, deliveredAt: number): DaySummary => ({
    kind,
    id,
    deliveredAt,
    summary: counted(serialized, label, { summaryId: id, copy: label }),
  });
  const brought = broughtSummaries([
    copy('d1 first', 'dailies', 'd1', 1_000),
    copy('e1 first', 'epochs', 'e1', 1_000),
    copy('d1 later', 'dailies', 'd1', 2_000),
    copy('d1 earlier', 'dailies', 'd1', 500),
    copy('e1 same time, listed later', 'epochs', 'e1', 1_000),
    copy('d1 again later', 'dailies', 'd1', 2_000),
  ]);
  assert.deepEqual(
    brought.map((item) => ({ kind: item.kind, id: item.id, deliveredAt: item.deliveredAt, json: item.json })),
    [
      {
        kind: 'dailies',
        id: 'd1',
        deliveredAt: 2_000,
        json: JSON.stringify({ summaryId: 'd1', copy: 'd1 again later' }),
      },
      {
        kind: 'epochs',
        id: 'e1',
        deliveredAt: 1_000,
        json: JSON.stringify({ summaryId: 'e1', copy: 'e1 same time, listed later' }),
      },
    ],
    'one per kind and id: the later delivered, then the later listed (as before)',
  );
  assert.deepEqual(
    Object.fromEntries(serialized),
    { 'd1 again later': 1, 'e1 same time, listed later': 1 },
    'each kept copy serialized once, and no copy left out',
  );
});
