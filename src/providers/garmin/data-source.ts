// Garmin Health / Activity API reads (docs/providers.md#garmin). Garmin delivers; partners do not
// ask. Summaries reach a partner only through its notification endpoint (connector.ts): a ping
// names a callback URL (an upload window of at most 24 h and a pull token), a push carries the
// summaries themselves. Health API §4 and §6.3.5: summary endpoints are called only as a ping
// prompts, and only with its callback URL; a pull without its token is refused
// (`InvalidPullTokenException`, reported by public integrations). So a fetch that answers a
// notification reads what `locate` made of it (`args.notified`: the checked callbacks, the pushed
// summaries), and any other fetch of days — the backfill after a connection, a read of days not
// stored yet — asks Garmin for a backfill of those days (Health API §8: summary time, at most 90
// days per request; activities 30), which Garmin answers later with pings or pushes like a sync.
import { createHash } from 'node:crypto';
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { ProviderDataError, type UnreadableKind } from '../../provider-kit/data-source.ts';
import type { DaySummary } from '../../provider-kit/day-companions.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import { openPieceSpool, type PieceSpool, PieceSpoolError } from '../../provider-kit/piece-spool.ts';
import { addDays, isoDateToDayNumber, MS_PER_DAY } from '../../model/time.ts';
import { garminNormalizers } from './normalize/index.ts';
import { piecesOf } from './pieces.ts';

export const GARMIN_API = 'https://apis.garmin.com/wellness-api/rest';
export const GARMIN_USER_ID_URL = 'https://apis.garmin.com/partner-gateway/rest/user/id';
/** Days one backfill job covers: one backfill request per summary type. */
export const GARMIN_CHUNK_DAYS = 30;
/** Garmin keeps (and backfills) this much history. */
export const GARMIN_HISTORY_DAYS = 5 * 365;
/** Health API §7: a summary endpoint serves at most 24 h of uploads per request. */
export const PULL_WINDOW_SECONDS = 86_400;

/** Garmin's summary types: the key in notification bodies -> its pull / backfill path. */
export const SUMMARY_PATHS = {
  dailies: 'dailies',
  epochs: 'epochs',
  stressDetails: 'stressDetails',
  pulseox: 'pulseox',
  sleeps: 'sleeps',
  hrv: 'hrv',
  allDayRespiration: 'respiration',
  bodyComps: 'bodyComps',
  userMetrics: 'userMetrics',
  activities: 'activities',
  activityDetails: 'activityDetails',
  manuallyUpdatedActivities: 'manuallyUpdatedActivities',
  mct: 'mct',
} as const;
export type SummaryKind = keyof typeof SUMMARY_PATHS;

const ACTIVITY_KINDS: ReadonlySet<SummaryKind> = new Set([
  'activities',
  'activityDetails',
  'manuallyUpdatedActivities',
]);
/** Backfill paths where they differ from the pull path (Health API §8 spells `pulseOx`). */
const BACKFILL_PATHS: Partial<Record<SummaryKind, string>> = { pulseox: 'pulseOx' };
/** Edits made in Garmin Connect are only ever notified: there is nothing to backfill. */
const NOT_BACKFILLED: ReadonlySet<SummaryKind> = new Set(['manuallyUpdatedActivities']);
/** Days one backfill request may cover: Health API §8 says 90; the Activity API says 30. */
const backfillMaxDays = (kind: SummaryKind) => (ACTIVITY_KINDS.has(kind) ? 30 : 90);

/**
 * What one notification's summaries may fill on disk before the fetch fails: days of the longest
 * backfill answer many times over, and more bytes than 90 days of second-by-second workouts. One
 * day (normalized at once, so held in memory) may hold 48 MB of summaries: a day at a real
 * watch's density (1 s workout samples of ~300 bytes, 15 s heart rate, epochs, stress) is a few
 * MB, a 24-hour race recorded every second about 26 MB.
 */
const SPOOL_LIMITS = { pieces: 4 * GARMIN_HISTORY_DAYS, bytes: 2 * 1024 ** 3, pieceBytes: 48 * 1024 ** 2 };

/** What a notification told the fetchers: callback URLs to pull (declared form) and pushed summaries. */
export type GarminNotified = {
  pulls: readonly { kind: SummaryKind; url: string }[];
  inline: Partial<Record<SummaryKind, readonly unknown[]>>;
  /** When the last push folded into `inline` arrived (ISO 8601): its summaries were delivered by then. */
  pushedAt?: string;
};

const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});
const seconds = (isoDate: string) => (isoDateToDayNumber(isoDate) * MS_PER_DAY) / 1000;

const isNotified = (value: unknown): value is GarminNotified =>
  typeof value === 'object' &&
  value !== null &&
  Array.isArray((value as GarminNotified).pulls) &&
  typeof (value as GarminNotified).inline === 'object';

/**
 * Asks Garmin to re-send the summaries of [startDate, endDate) (within its history, not past
 * now), in requests of at most each type's maximum; 202, or 409 for a range already asked.
 */
async function requestBackfill(
  http: ProviderHttp,
  kinds: readonly SummaryKind[],
  args: TypeFetchArgs,
): Promise<UnreadableKind[]> {
  const unreadable: UnreadableKind[] = [];
  const nowSeconds = Math.floor(args.now.getTime() / 1000);
  const today = args.now.toISOString().slice(0, 10);
  const oldest = addDays(today, -GARMIN_HISTORY_DAYS + 1);
  const from = args.startDate < oldest ? oldest : args.startDate;
  for (const kind of kinds) {
    if (NOT_BACKFILLED.has(kind)) continue;
    const step = backfillMaxDays(kind);
    for (let start = from; start < args.endDate; start = addDays(start, step)) {
      const startSeconds = seconds(start);
      if (startSeconds >= nowSeconds) break;
      const next = addDays(start, step);
      const endSeconds = Math.min(seconds(next < args.endDate ? next : args.endDate), nowSeconds);
      try {
        await http.json({
          url: `${GARMIN_API}/backfill/${BACKFILL_PATHS[kind] ?? SUMMARY_PATHS[kind]}`,
          query: { summaryStartTimeInSeconds: startSeconds, summaryEndTimeInSeconds: endSeconds },
          // 409: asked already; 412: the user does not share this summary type (Health API App. E).
          absentOn: [409, 412],
        });
      } catch (error) {
        // Garmin enables summary types per partner: a companion it refuses on its own path is
        // not served to this deployment. The summary itself still is (a day without its pulse ox
        // is still a day); a refusal of the summary is the read's own failure.
        const status = refusalStatus(error);
        if (kind === kinds[0] || status === null) throw error;
        unreadable.push({ kind, status, detail: (error as Error).message });
        break;
      }
    }
  }
  return unreadable;
}

/** The status of a 4xx that is about the path itself (not the token, a retry, the user's sharing). */
function refusalStatus(error: unknown): number | null {
  if (!(error instanceof ProviderDataError) || error.status === null) return null;
  const { status } = error;
  return status >= 400 && status < 500 && ![401, 408, 409, 412, 429].includes(status) ? status : null;
}

/** A summary as spooled: when Garmin delivered it (epoch ms), and the summary. */
type Delivered = { at: number; item: unknown };

/** When Garmin delivered what a callback returns: the end of its upload window (epoch ms), else `now`. */
function deliveredAt(callback: string, now: number): number {
  const end = Number(new URL(callback).searchParams.get('uploadEndTimeInSeconds') ?? Number.NaN);
  return Number.isSafeInteger(end) && end >= 0 ? end * 1000 : now;
}

/**
 * Files the summaries of `kinds` a notification brought into `spool` by day, each with when
 * Garmin delivered it: its pushed summaries (by the time the last push arrived), then
 * each callback pulled and read item by item as the answer arrives. Returns the summaries found
 * (dated or not).
 */
async function spoolNotified(
  args: TypeFetchArgs,
  kinds: readonly SummaryKind[],
  notified: GarminNotified,
  spool: PieceSpool,
): Promise<number> {
  const context = contextOf(args);
  let found = 0;
  const keep = async (kind: SummaryKind, item: unknown, at: number) => {
    if (item === null || typeof item !== 'object') return;
    found += 1;
    await spool.add(piecesOf(kind, item, context), kind, { at, item } satisfies Delivered);
  };
  const now = args.now.getTime();
  const pushed = notified.pushedAt ? Date.parse(notified.pushedAt) : Number.NaN;
  const pushedAt = Number.isFinite(pushed) ? Math.min(pushed, now) : now;
  for (const kind of kinds) for (const item of notified.inline[kind] ?? []) await keep(kind, item, pushedAt);
  for (const pull of notified.pulls) {
    if (!kinds.includes(pull.kind)) continue;
    // 400: a token Garmin does not take (expired, or a forged ping's); 404/412: nothing to give.
    // Either way this callback is spent: the rest of the notification still counts.
    const items = await args.http.items({ url: pull.url, absentOn: [400, 404, 412] });
    if (items === null) continue;
    const at = deliveredAt(pull.url, now);
    for await (const item of items) await keep(pull.kind, item, at);
  }
  return found;
}

/** A summary's identity among its kind's: Garmin's `summaryId`, else its content. */
function summaryIdOf(item: unknown): string {
  const id = (item as { summaryId?: unknown }).summaryId;
  if (typeof id === 'string' || typeof id === 'number') return String(id);
  return `sha256:${createHash('sha256').update(JSON.stringify(item)).digest('hex')}`;
}

/** What this notification brought of `day`: each summary of `kinds` with its id and when Garmin delivered it. */
async function broughtOfDay(
  kinds: readonly SummaryKind[],
  day: string,
  spool: PieceSpool,
): Promise<DaySummary[]> {
  const brought = (await spool.read(day)) as Record<string, Delivered[]>;
  return kinds.flatMap((kind) =>
    (brought[kind] ?? []).map(({ at, item }) => ({
      kind,
      id: summaryIdOf(item),
      deliveredAt: at,
      summary: item,
    })),
  );
}

/**
 * A fetcher of one unified type from Garmin's summary kinds. Answering a notification, its
 * summaries are spooled by day (pieces.ts) and yielded one day at a time, each its own page: what
 * the notification brought of the day and how to normalize a day (`companions`). Core keeps them
 * with the summaries kept of that day before (day companions), so a day whose kinds Garmin
 * notified apart (minutes apart, or a backfill's answer of each type) is normalized whole, and
 * stores the records with the day's summaries as the raw payload: memory holds a day, whatever the
 * history a backfill's answers carry.
 */
function summaryFetcher<P>(
  kinds: readonly SummaryKind[],
  normalize: (payload: P, context: NormalizeContext) => readonly unknown[],
): TypeFetcher {
  return async function* (args) {
    // The first kind is the summary; companions Garmin refused this connection before are left out.
    const wanted = kinds.filter((kind, index) => index === 0 || !args.unreadable?.has(kind));
    if (!isNotified(args.notified)) {
      // Nothing to pull without a ping: Garmin is asked to deliver these days instead.
      const unreadable = await requestBackfill(args.http, wanted, args);
      if (unreadable.length > 0) yield { records: [], unreadable };
      return;
    }
    const spool = await openPieceSpool(SPOOL_LIMITS);
    try {
      try {
        if ((await spoolNotified(args, wanted, args.notified, spool)) === 0) return;
      } catch (error) {
        if (!(error instanceof PieceSpoolError)) throw error;
        throw new ProviderDataError(
          'unavailable',
          `Garmin ${kinds.join('/')} answers too large: ${error.message}`,
        );
      }
      for (const day of await spool.pieces()) {
        const build = (found: Readonly<Record<string, readonly unknown[]>>) => {
          const payload = Object.fromEntries(wanted.map((kind) => [kind, found[kind] ?? []]));
          try {
            return { records: normalize(payload as P, contextOf(args)), raw: payload };
          } catch (error) {
            // A shape no documented Garmin summary has: a clean provider error, never a TypeError upstream.
            throw new ProviderDataError(
              'unavailable',
              `Garmin ${kinds.join('/')} summaries of ${day} could not be normalized`,
              { cause: error },
            );
          }
        };
        const summaries = await broughtOfDay(wanted, day, spool);
        yield { records: [], companions: { day, summaries, maxBytes: SPOOL_LIMITS.pieceBytes, build } };
      }
    } finally {
      await spool.close();
    }
  };
}

const n = garminNormalizers;

export const garminFetchers = {
  daily: summaryFetcher(['dailies', 'epochs', 'stressDetails', 'pulseox'], n.dailies.normalize),
  sleep: summaryFetcher(['sleeps', 'hrv', 'allDayRespiration'], n.sleeps.normalize),
  body: summaryFetcher(['bodyComps', 'userMetrics'], n.bodyComps.normalize),
  activity: summaryFetcher(
    ['activities', 'activityDetails', 'manuallyUpdatedActivities'],
    n.activities.normalize,
  ),
  menstruation: summaryFetcher(['mct'], n.mct.normalize),
  async *athlete(args) {
    const body = await args.http.json<{ userId?: unknown }>({ url: GARMIN_USER_ID_URL });
    const userId = typeof body?.userId === 'string' ? body.userId : args.user.providerUserId;
    if (!userId) return;
    yield { records: n.user.normalize({ userId }, contextOf(args)), raw: body };
  },
} satisfies Record<string, TypeFetcher>;
