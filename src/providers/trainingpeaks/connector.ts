// How the TrainingPeaks Partners API behaves (github.com/TrainingPeaks/PartnersAPI/wiki).
//
// Limits: "no preset hard limit"; partners are asked to keep load modest and to ask before large
// batches (wiki FAQ). The windows below are a courtesy an operator can change
// (TRAININGPEAKS_REQUEST_BUDGET).
//
// Changes: webhooks exist (v1/webhook/subscriptions, Early Access: workout-created / -updated /
// -deleted per athlete), but the wiki documents neither the body TrainingPeaks posts nor any
// signature, so an unsigned body of unknown shape is not relied on. Instead the documented
// incremental-sync endpoint is polled: GET /v2/workouts/changed?date=<UTC>&pageSize=…&page=…
// (pageSize at most 100, page zero-based) answers `{Deleted: [ids], Modified: [workouts]}`: the
// modified workouts' days are fetched again, the deleted ids removed wherever they lie. The
// wiki's text names the path `/v2/workouts/changes` and its examples `/v2/workouts/changed`; the
// examples are followed [unconfirmed]. Metrics have no changes endpoint and are not polled.
import type { ChangedData, ProviderApi } from '../../provider-kit/api.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { TRAININGPEAKS_API, TRAININGPEAKS_CHUNK_DAYS } from './data-source.ts';

const PAGE_SIZE = 100;
const MAX_PAGES = 50;

type Changes = { Deleted?: unknown; Modified?: { WorkoutDay?: unknown }[] | null };

/** A workout id of `Deleted` as the records carry it (`summary_id` / planned `id`: its text). */
const deletedId = (id: unknown): string | null =>
  (typeof id === 'number' && Number.isInteger(id)) || (typeof id === 'string' && /^\d+$/.test(id))
    ? String(id)
    : null;

/** A TrainingPeaks workout is an activity once completed, a planned workout until then. */
const WORKOUT_TYPES = ['activity', 'plannedWorkout'] as const;

export const trainingPeaksApi: ProviderApi = {
  requestWindows: [
    { requests: 60, seconds: 60 },
    { requests: 20_000, seconds: 86_400 },
  ],
  userShare: 0.25,
  backfillDays: 90,
  backfillChunkDays: TRAININGPEAKS_CHUNK_DAYS,
  poll: {
    minutes: 15,
    async changes({ http, since, now }): Promise<ChangedData | null> {
      const days: string[] = [];
      const deleted: string[] = [];
      for (let page = 0; page < MAX_PAGES; page++) {
        const body = await http.json<Changes>({
          url: `${TRAININGPEAKS_API}/v2/workouts/changed`,
          query: { date: since.toISOString(), pageSize: PAGE_SIZE, page },
        });
        const modified = Array.isArray(body?.Modified) ? body.Modified : [];
        for (const workout of modified) {
          const day = typeof workout?.WorkoutDay === 'string' ? workout.WorkoutDay.slice(0, 10) : '';
          if (isIsoDate(day)) days.push(day);
        }
        // "Workouts Get Changed": `Deleted` lists the ids of deleted workouts, completed or planned.
        const gone = Array.isArray(body?.Deleted) ? body.Deleted : [];
        for (const id of gone) {
          const text = deletedId(id);
          if (text !== null) deleted.push(text);
        }
        if (modified.length < PAGE_SIZE && gone.length < PAGE_SIZE) break;
      }
      days.sort();
      const first = days[0];
      const last = days[days.length - 1];
      const removed =
        deleted.length > 0 ? { removed: { types: WORKOUT_TYPES, ids: [...new Set(deleted)] } } : {};
      // Only deletions: no days to fetch again (an empty range).
      const today = now.toISOString().slice(0, 10);
      if (!first || !last)
        return deleted.length > 0 ? { types: [], startDate: today, endDate: today, ...removed } : null;
      return { types: WORKOUT_TYPES, startDate: first, endDate: addDays(last, 1), ...removed };
    },
  },
};
