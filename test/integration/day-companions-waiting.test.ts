// A day built from its kept summaries (`DataPage.companions`) waits for its batch's locked section
// as the text of what its fetch brought (features/data/page-intake.ts). What waits outlives the
// young generation and is old-generation garbage once written: with up to 2 MB of it waiting, the
// 30-day Garmin backfill bench peaked ~10-25 MB above the code before the day sections. Now the
// waiting days hold at most 256 KB of text (plus the day that passes it) before their batch is
// kept, read back, built and written. Counted, not timed: each build says how much text had been
// pulled from the provider's pages and not yet built.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ConnectionRow } from '../../src/features/connections/service.ts';
import type { DataPage } from '../../src/provider-kit/data-source.ts';
import { createDeveloper, startTestService, type TestService } from '../helpers/app.ts';
import { insertConnection } from '../helpers/users.ts';

const DAYS = 8;
/** One day's summary: ~200 KB of JSON, so a second waiting day passes 256 KB. */
const DAY_TEXT = 200 * 1024;
const WAITING_LIMIT = 256 * 1024;

describe('days waiting for their locked section', () => {
  let service: TestService;
  let user: ConnectionRow;

  before(async () => {
    service = await startTestService({ env: { LOG_LEVEL: 'warn' }, work: false });
    const developer = await createDeveloper(service.ctx);
    user = await insertConnection(service.ctx, { developerId: developer.devId, provider: 'GARMIN' });
  });
  after(async () => {
    await service?.close();
  });

  test(`hold at most ${WAITING_LIMIT / 1024} KB of what their fetch brought, plus one day`, async () => {
    let pulled = 0;
    let built = 0;
    /** Text pulled and not yet built, as each day is built. */
    const waitingAtBuild: number[] = [];
    const dayOf = (index: number) => `2026-05-${String(index + 1).padStart(2, '0')}`;
    async function* pages(): AsyncIterable<DataPage> {
      for (let index = 0; index < DAYS; index++) {
        pulled += 1;
        yield {
          records: [],
          companions: {
            day: dayOf(index),
            summaries: [
              {
                kind: 'dailies',
                id: `d${index}`,
                deliveredAt: 1_000,
                summary: { summaryId: `d${index}`, samples: 'x'.repeat(DAY_TEXT) },
              },
            ],
            maxBytes: 48 * 1024 ** 2,
            build(byKind) {
              waitingAtBuild.push((pulled - built) * DAY_TEXT);
              built += 1;
              assert.equal(byKind.dailies?.length, 1, 'the day is built from what it brought');
              return { records: [] };
            },
          },
        };
      }
    }
    await service.ctx.data.intakeChanged(user, 'daily', { fromDay: dayOf(0), toDay: dayOf(DAYS) }, pages());
    assert.equal(built, DAYS, 'every day built');
    assert.ok(
      Math.max(...waitingAtBuild) <= WAITING_LIMIT + DAY_TEXT,
      `text waiting when a day is built: ${waitingAtBuild.map((bytes) => Math.round(bytes / 1024)).join(', ')} KB`,
    );
  });
});
