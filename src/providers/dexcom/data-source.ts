// Dexcom API v3 reads (docs/providers.md#dexcom): EGVs and events by `startDate` / `endDate`
// (`YYYY-MM-DDThh:mm:ss`, no zone, compared with systemTime in UTC, at most 30 days apart) and
// the current devices. Readings are grouped into the user's local days, so each range is asked
// a day wider on each side and only the asked days are kept (a margin day is incomplete).
import { requestedDaysOnly } from '../../provider-kit/local-days.ts';
import { dayChunks } from '../../provider-kit/pagination.ts';
import type { ProviderHttp, TypeFetcher } from '../../provider-kit/api.ts';
import { addDays } from '../../model/time.ts';
import { type DexcomDevice, type DexcomEgv, type DexcomEvent, dexcomNormalizers } from './normalize/index.ts';

export const DEXCOM_API = 'https://api.dexcom.com/v3/users/self';
/** 28 days plus a day on each side: Dexcom's 30-day window. */
export const DEXCOM_CHUNK_DAYS = 28;

type Envelope<T> = { records?: T[] };

/** Dexcom's window form: UTC wall time without a zone. */
export const dexcomTime = (date: Date) => date.toISOString().slice(0, 19);

async function records<T>(
  http: ProviderHttp,
  kind: string,
  startDate: string,
  endDate: string,
): Promise<T[]> {
  const body = await http.json<Envelope<T>>({
    url: `${DEXCOM_API}/${kind}`,
    query: { startDate: `${startDate}T00:00:00`, endDate: `${endDate}T00:00:00` },
  });
  return body?.records ?? [];
}

export const dexcomFetchers = {
  async *body(args) {
    for (const range of dayChunks(args.startDate, args.endDate, DEXCOM_CHUNK_DAYS)) {
      const from = addDays(range.startDate, -1);
      const to = addDays(range.endDate, 1);
      const payload = {
        egvs: await records<DexcomEgv>(args.http, 'egvs', from, to),
        events: await records<DexcomEvent>(args.http, 'events', from, to),
        devices:
          (await args.http.json<Envelope<DexcomDevice>>({ url: `${DEXCOM_API}/devices` }))?.records ?? [],
      };
      const all = dexcomNormalizers.egvs.normalize(payload, {
        userOffsetMinutes: null,
        now: args.now.getTime(),
      });
      yield { records: requestedDaysOnly(all, range), raw: payload };
    }
  },
} satisfies Record<string, TypeFetcher>;
