// Results links (issue 14): signed over item, test taker and expiry; valid for 15 minutes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { createResultLinks, RESULTS_LINK_SECONDS } from '../../src/features/orders/result-links.ts';

test('a link is valid until it expires, and only for its item and test taker', () => {
  let now = Date.parse('2026-07-24T10:00:00Z');
  const links = createResultLinks({
    encryptionKey: randomBytes(32),
    publicUrl: 'https://tributary.example',
    clock: { now: () => new Date(now) },
  });
  const link = links.linkFor('333410942627700737', '333410942627700738');
  assert.equal(link.format, 'json');
  assert.equal(link.expires_at, '2026-07-24T10:15:00Z');
  const url = new URL(link.download_url);
  assert.equal(
    url.origin + url.pathname,
    'https://tributary.example/api/v1/results/333410942627700737/download',
  );
  const query = Object.fromEntries(url.searchParams);
  assert.equal(links.check('333410942627700737', query), 'valid');
  assert.equal(links.check('333410942627700736', query), 'invalid', 'another item');
  assert.equal(links.check('333410942627700737', { ...query, test_taker_id: '1' }), 'invalid');
  assert.equal(links.check('333410942627700737', { ...query, signature: 'zz' }), 'invalid');
  now += RESULTS_LINK_SECONDS * 1000 - 1;
  assert.equal(links.check('333410942627700737', query), 'valid', 'still valid a millisecond before');
  now += 1;
  assert.equal(links.check('333410942627700737', query), 'expired');
});
