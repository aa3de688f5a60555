// newId draws its random bytes from a pool (core/ids.ts): every id keeps its shape and is fresh,
// across the pool's refills and with other sizes mixed in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from '../../src/core/ids.ts';

test('ids from the pool keep their shape and never repeat, across refills', () => {
  const seen = new Set<string>();
  // 4,096-byte pool: 12-byte ids and odd sizes between them cross many refills.
  for (let index = 0; index < 5_000; index++) {
    const id = newId('delivery');
    assert.match(id, /^dlv_[0-9a-f]{24}$/);
    seen.add(id.slice(4));
    if (index % 7 === 0) assert.match(newId('request', 5), /^req_[0-9a-f]{10}$/);
  }
  assert.equal(seen.size, 5_000);
  assert.match(newId('webhookEvent', 5_000), /^evt_[0-9a-f]{10000}$/);
});
