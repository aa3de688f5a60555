// Issue 25 class 4, in the shared provider kit: a day record assembled from the part of a local
// day that a fetch window overlapped is never emitted. The window that holds every requested local
// day whole at any offset, and the filter that keeps only the requested days.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TypeFetchArgs } from '../../src/provider-kit/api.ts';
import {
  requestedDaysOnly,
  wholeLocalDays,
  wholeLocalDaysWindow,
} from '../../src/provider-kit/local-days.ts';
import { localMidnightMs, MS_PER_DAY } from '../../src/model/time.ts';
import type { ProviderHttp, ProviderRequest } from '../../src/provider-kit/api.ts';
import { ouraFetchers } from '../../src/providers/oura/data-source.ts';

const range = { startDate: '2026-03-01', endDate: '2026-03-15' };
const day = (date: string, offset: string) => ({
  metadata: { start_time: `${date}T00:00:00.000000${offset}` },
});

describe('whole local days', () => {
  test('the window holds every requested local day whole, from UTC+14 to UTC−12', () => {
    const { fromMs, toMs } = wholeLocalDaysWindow(range);
    for (const offsetMinutes of [840, 330, 60, 0, -300, -480, -720]) {
      const first = localMidnightMs(range.startDate, offsetMinutes);
      const lastEnd = localMidnightMs(range.endDate, offsetMinutes);
      assert.ok(fromMs <= first, `${offsetMinutes}: the first day's start is inside`);
      assert.ok(toMs >= lastEnd, `${offsetMinutes}: the last day's end is inside`);
    }
    assert.ok(toMs - fromMs < 16 * MS_PER_DAY, 'and not much more');
  });

  test('only the requested days are kept, whatever offset they are written in', () => {
    const records = [
      day('2026-02-28', '-08:00'),
      day('2026-03-01', '-08:00'),
      day('2026-03-14', '+14:00'),
      day('2026-03-15', '-08:00'),
    ];
    assert.deepEqual(
      requestedDaysOnly(records, range).map((record) => record.metadata.start_time.slice(0, 10)),
      ['2026-03-01', '2026-03-14'],
    );
  });

  test('a wrapped fetcher never yields a margin day, and keeps the rest of its page', async () => {
    // A provider that assembles days from a window cut at UTC midnight: at −08:00 its first and
    // last days are partial (the window held 16 and 8 of their hours).
    const fetcher = wholeLocalDays(async function* () {
      yield {
        records: [day('2026-02-28', '-08:00'), day('2026-03-01', '-08:00'), day('2026-03-15', '-08:00')],
        raw: { kept: true },
      };
    });
    const pages = [];
    for await (const page of fetcher({ ...range } as TypeFetchArgs)) pages.push(page);
    assert.equal(pages.length, 1);
    assert.deepEqual(pages[0]?.raw, { kept: true }, 'the raw payload stays whole');
    assert.deepEqual(pages[0]?.records, [day('2026-03-01', '-08:00')]);
  });

  // A provider applied: Oura's body days are built from heart-rate rows asked a day wider on each
  // side; the days at the margins are not the fetch's to store.
  test('Oura body: a fetch of [start, end) stores those days only, however wide it asked', async () => {
    const asked: ProviderRequest[] = [];
    const http: ProviderHttp = {
      client: null,
      bytes: async () => null,
      items: async () => null,
      async json<T>(request: ProviderRequest) {
        asked.push(request);
        if (!request.url.endsWith('/heartrate')) return { data: [] } as T;
        const from = Date.parse(String(request.query?.start_datetime));
        const to = Date.parse(String(request.query?.end_datetime));
        const data = [];
        for (let at = from; at < to; at += 3_600_000)
          data.push({ bpm: 60, source: 'awake', timestamp: new Date(at).toISOString() });
        return { data, next_token: null } as T;
      },
    };
    const days = new Set<string>();
    for await (const page of ouraFetchers.body({
      http,
      user: { id: 'u', providerUserId: 'p', scopes: null },
      ...range,
      now: new Date('2026-04-01T00:00:00Z'),
    }))
      for (const record of page.records as { metadata: { start_time: string } }[])
        days.add(record.metadata.start_time.slice(0, 10));
    assert.ok(asked.some((request) => request.url.endsWith('/heartrate')));
    assert.equal(days.size, 14);
    assert.ok(
      [...days].every((day) => day >= range.startDate && day < range.endDate),
      [...days].join(' '),
    );
  });
});
