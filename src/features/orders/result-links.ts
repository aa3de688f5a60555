// Results are handed out as a signed, expiring link (`GET /api/v1/results/{orderItemID}` answers
// `{download_url, expires_at, format}`); the link itself serves the FHIR bundle without
// credentials, for 15 minutes. The signature covers the item, the test taker and the expiry, keyed
// with a key derived from the service's encryption key, so a link cannot be widened or extended.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../core/clock.ts';

/** How long a results link works. */
export const RESULTS_LINK_SECONDS = 15 * 60;

export type ResultsLink = { download_url: string; expires_at: string; format: 'json' };
export type LinkCheck = 'valid' | 'expired' | 'invalid';

export function createResultLinks(deps: { encryptionKey: Buffer; publicUrl: string; clock: Clock }) {
  const key = createHmac('sha256', deps.encryptionKey).update('tributary:order-results-link').digest();
  const sign = (itemId: string, testTakerId: string, expires: number) =>
    createHmac('sha256', key).update(`${itemId}.${testTakerId}.${expires}`).digest('hex');

  return {
    /** The link for an item's results, valid from now for RESULTS_LINK_SECONDS. */
    linkFor(itemId: string, testTakerId: string): ResultsLink {
      const expires = Math.floor(deps.clock.now().getTime() / 1000) + RESULTS_LINK_SECONDS;
      const url = new URL(`${deps.publicUrl}/api/v1/results/${encodeURIComponent(itemId)}/download`);
      url.searchParams.set('test_taker_id', testTakerId);
      url.searchParams.set('expires', String(expires));
      url.searchParams.set('signature', sign(itemId, testTakerId, expires));
      return {
        download_url: url.toString(),
        expires_at: new Date(expires * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        format: 'json',
      };
    },

    check(
      itemId: string,
      query: { test_taker_id?: string; expires?: string; signature?: string },
    ): LinkCheck {
      const { test_taker_id: testTakerId, expires, signature } = query;
      if (
        !testTakerId ||
        !expires ||
        !/^\d{1,12}$/.test(expires) ||
        !signature ||
        !/^[0-9a-f]{64}$/.test(signature)
      )
        return 'invalid';
      const expected = Buffer.from(sign(itemId, testTakerId, Number(expires)), 'hex');
      if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'invalid';
      return Number(expires) * 1000 <= deps.clock.now().getTime() ? 'expired' : 'valid';
    },
  };
}

export type ResultLinks = ReturnType<typeof createResultLinks>;
