// Garmin's fetchers normalize what a notification brings one local day at a time (pieces.ts,
// through a spool on disk) rather than all at once: the records must be exactly those of
// normalizing everything together — every join (a day's epochs, stress and pulse ox; a night's
// HRV and the respiration of the evening before; an activity's details; a weigh-in's metrics)
// lands inside one day. Checked on the fake's data at a real watch's volume, each day its own
// page; and the spool's folder is gone afterwards, also when the consumer stops early.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import type { ProviderHttp, TypeFetchArgs } from '../../src/provider-kit/api.ts';
import type { DataPage } from '../../src/provider-kit/data-source.ts';
import { garminFetchers, type SummaryKind } from '../../src/providers/garmin/data-source.ts';
import { garminNormalizers } from '../../src/providers/garmin/normalize/index.ts';
import * as data from '../fakes/garmin-data.ts';

const user: data.GarminUser = { seed: 'pieces', userId: 'garmin-user', offsetMinutes: -300, volume: 'real' };
const DAYS = Array.from({ length: 8 }, (_, index) => 20_400 + index);

const lists: Record<SummaryKind, unknown[]> = {
  dailies: DAYS.map((day) => data.dailyOf(user, day)),
  epochs: DAYS.flatMap((day) => data.epochsOf(user, day)),
  stressDetails: DAYS.map((day) => data.stressOf(user, day)),
  pulseox: DAYS.map((day) => data.pulseOxOf(user, day)),
  sleeps: DAYS.map((day) => data.sleepOf(user, day)),
  hrv: DAYS.map((day) => data.hrvOf(user, day)),
  allDayRespiration: DAYS.map((day) => data.respirationOf(user, day)),
  bodyComps: DAYS.flatMap((day) => data.bodyCompsOf(user, day)),
  userMetrics: DAYS.filter((day) => day % 7 === 0).map((day) => data.userMetricsOf(user, day)),
  activities: DAYS.flatMap((day) => data.activitiesOf(user, day, 1)),
  activityDetails: DAYS.flatMap((day) =>
    data.activitiesOf(user, day, 1).map((activity) => data.activityDetailsOf(activity, user)),
  ),
  manuallyUpdatedActivities: [],
  mct: DAYS.map((day) => data.mctOf(user, day)),
};

const http: ProviderHttp = {
  client: null,
  json: async () => null,
  bytes: async () => null,
  async items(request) {
    const kind = new URL(request.url).searchParams.get('kind') as SummaryKind;
    return (async function* () {
      yield* lists[kind];
    })();
  },
};

const argsFor = (kinds: readonly SummaryKind[]): TypeFetchArgs => ({
  http,
  user: { id: 'user-1', providerUserId: user.userId, scopes: '' },
  startDate: '2025-01-01',
  endDate: '2025-02-01',
  now: new Date('2026-01-01T00:00:00Z'),
  notified: {
    pulls: kinds.map((kind) => ({ kind, url: `https://apis.garmin.com/wellness-api/rest/x?kind=${kind}` })),
    inline: {},
  },
});
const sorted = (records: readonly unknown[]) => records.map((record) => JSON.stringify(record)).sort();
/** A page's records as core makes them with nothing kept of its day before: built from what it brought. */
function recordsOf(page: DataPage): readonly unknown[] {
  if (!page.companions) return page.records;
  const byKind: Record<string, unknown[]> = {};
  for (const item of page.companions.summaries) (byKind[item.kind] ??= []).push(item.summary);
  return [...page.records, ...page.companions.build(byKind).records];
}
// This process's spools (a closing spool may sweep the folders other, ended processes left).
const spools = () =>
  readdirSync(tmpdir()).filter((name) => name.startsWith(`tributary-pieces-${process.pid}-`));

const cases = [
  { type: 'daily', kinds: ['dailies', 'epochs', 'stressDetails', 'pulseox'], row: garminNormalizers.dailies },
  { type: 'sleep', kinds: ['sleeps', 'hrv', 'allDayRespiration'], row: garminNormalizers.sleeps },
  { type: 'body', kinds: ['bodyComps', 'userMetrics'], row: garminNormalizers.bodyComps },
  {
    type: 'activity',
    kinds: ['activities', 'activityDetails', 'manuallyUpdatedActivities'],
    row: garminNormalizers.activities,
  },
  { type: 'menstruation', kinds: ['mct'], row: garminNormalizers.mct },
] as const;

for (const { type, kinds, row } of cases) {
  test(`${type}: day by day, the same records as all at once`, async () => {
    const before = spools().length;
    const whole = Object.fromEntries(kinds.map((kind) => [kind, lists[kind]]));
    const expected = (row.normalize as (payload: unknown, context: unknown) => unknown[])(whole, {
      userOffsetMinutes: null,
      now: Date.parse('2026-01-01T00:00:00Z'),
    });
    const pages: DataPage[] = [];
    for await (const page of garminFetchers[type](argsFor(kinds))) pages.push(page);
    assert.ok(expected.length > 0, 'the fake holds records of this type');
    assert.deepEqual(sorted(pages.flatMap(recordsOf)), sorted(expected));
    // A day's summary type comes as a day's page (weigh-ins and cycles only on their days).
    if (type === 'daily' || type === 'sleep')
      assert.ok(pages.length >= DAYS.length, `a page a day (${pages.length})`);
    assert.equal(spools().length, before, 'the spool folder is removed');
  });
}

test('a consumer that stops after the first day leaves no spool behind', async () => {
  const before = spools().length;
  for await (const page of garminFetchers.daily(argsFor(['dailies', 'epochs']))) {
    assert.ok(recordsOf(page).length > 0);
    break;
  }
  assert.equal(spools().length, before);
});
