import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageTextOf } from '../../src/features/data/range-reads.ts';
import { answerBytes } from '../../src/features/data/stream.ts';

test('an answer written as bytes from its pieces is the UTF-8 of the pieces joined, whatever their characters', () => {
  const pieces = [
    '{"user":{"name":"Zoë"},"data":[',
    '{"note":"5 km à 4′30″ 🏃"},{"a":1}',
    '],"type":"activity"}',
  ];
  const bytes = answerBytes(pieces);
  assert.deepEqual(bytes, Buffer.from(pieces.join(''), 'utf8'));
  assert.equal(JSON.parse(bytes.toString('utf8')).data[0].note, '5 km à 4′30″ 🏃');
  assert.equal(answerBytes([]).length, 0);
});

test("a page's pieces: lead, then separator and records when it has any, then the tail when it is the range's last", () => {
  const envelope = { lead: '{"data":[', separator: ',', tail: ']}', limit: 2 };
  const at = new Date('2024-03-01T00:00:00Z');
  const full = pageTextOf({ records: 2, text: '{"a":1},{"a":2}', last_at: at, last_key: 'k2' }, envelope);
  assert.deepEqual(full, {
    records: 2,
    pieces: ['{"data":[', ',', '{"a":1},{"a":2}'],
    last: { at, key: 'k2' },
  });
  const last = pageTextOf({ records: 1, text: '{"a":3}', last_at: at, last_key: 'k3' }, envelope);
  assert.deepEqual(last.pieces, ['{"data":[', ',', '{"a":3}', ']}']);
  // An empty page (no row, or a row of no records) carries the lead and the tail alone.
  assert.deepEqual(pageTextOf(undefined, envelope), { records: 0, pieces: ['{"data":[', ']}'], last: null });
  const empty = pageTextOf(
    { records: 0, text: null, last_at: null, last_key: null },
    { ...envelope, lead: '' },
  );
  assert.deepEqual(empty.pieces, [']}']);
});
