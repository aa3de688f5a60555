// A companion summary type Garmin does not serve this partner (issue 41). Garmin enables summary
// types per consumer key; a type not enabled is refused on its own path (the fake answers 403,
// test/fakes/garmin.ts). A daily read of days not stored asks Garmin to backfill dailies and its
// companions (epochs, stress details, pulse ox): one refused companion used to fail the whole read
// with a 503. Now the refusal is recorded for the connection, the companion is skipped from then
// on, the rest of the day is served, and the user's dashboard page shows the gap.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { addDays, dayNumberToIsoDate, MS_PER_DAY } from '../../src/model/time.ts';
import { providerEnv } from '../fakes/fake-server.ts';
import { type GarminFake, startGarminFake } from '../fakes/garmin.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectThroughFake } from '../helpers/connections.ts';
import { DashboardClient } from '../helpers/dashboard.ts';

describe('GARMIN: a companion type the partner is not served', () => {
  let fake: GarminFake;
  let service: TestService;
  let developer: TestDeveloper;
  let userId: string;
  const today = () => dayNumberToIsoDate(Math.floor(Date.now() / MS_PER_DAY));
  const pulseOxRefusals = () => fake.refusals.filter((refusal) => /pulse ?ox/i.test(refusal.path)).length;
  const readDaily = (back: number) =>
    service.app.inject({
      method: 'GET',
      url: `/v2/daily?user_id=${userId}&start_date=${addDays(today(), -back - 10)}&end_date=${addDays(today(), -back)}&to_webhook=false`,
      headers: developer.headers,
    });

  before(async () => {
    fake = await startGarminFake({ offsetMinutes: 60, historyDays: 1000 });
    fake.partnerDisabled.add('pulseox');
    service = await startTestService({
      env: {
        ...providerEnv('GARMIN', fake),
        GARMIN_REQUEST_BUDGET: '100000/60',
        PROVIDER_HTTP_RETRY_BASE_MS: '20',
      },
      work: false,
    });
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = service.app.server.address() as AddressInfo;
    fake.endpointUrl = `http://127.0.0.1:${port}/providers/GARMIN/webhook`;
    developer = await createDeveloper(service.ctx);
    userId = (await connectThroughFake(service.app, developer, 'GARMIN', fake, 'garmin-companions')).userId;
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  test('the daily read is served; the refused companion is recorded once and skipped from then on', async () => {
    const first = await readDaily(200);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(pulseOxRefusals(), 1, 'Garmin refused the pulse ox backfill once');
    const asked = fake.requestsTo('/wellness-api/rest/backfill/').map((request) => request.path);
    assert.ok(
      asked.some((path) => path.endsWith('/dailies')),
      'the dailies themselves were asked for',
    );
    const rows = await service.ctx.data.unreadableCompanions(userId);
    assert.deepEqual(
      rows.map((row) => [row.kind, row.type, row.status]),
      [['pulseox', 'daily', 403]],
    );

    const second = await readDaily(300);
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(pulseOxRefusals(), 1, 'not asked again');
    const dailiesAsked = fake.requestsTo('/wellness-api/rest/backfill/dailies').length;
    assert.ok(dailiesAsked >= 2, 'the other days were still asked for');
  });

  test('the user’s dashboard page shows the gap', async () => {
    const browser = new DashboardClient(service.app);
    const signedIn = await browser.signIn(developer.devId, developer.apiKey);
    assert.ok(signedIn.statusCode < 400, signedIn.body);
    const page = await browser.get(`/dashboard/users/${userId}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /Not served by the provider/);
    assert.match(page.body, /pulseox[\s\S]*daily records come without it: GARMIN answered 403/);
  });
});
