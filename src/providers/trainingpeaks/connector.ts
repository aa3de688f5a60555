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
// (pageSize at most 100, page zero-based) answers `{Deleted: [ids], Modified: [workouts]}`. The
// wiki's text names the path `/v2/workouts/changes` and its examples `/v2/workouts/changed`; the
// examples are followed [unconfirmed]. Metrics have no changes endpoint and are not polled.
import type { ChangedData, ProviderApi } from '../../provider-kit/api.ts';
import { addDays, isIsoDate } from '../../model/time.ts';
import { TRAININGPEAKS_API, TRAININGPEAKS_CHUNK_DAYS } from './data-source.ts';

const PAGE_SIZE = 100;
const MAX_PAGES = 50;

type Changes = { Deleted?: unknown; Modified?: { WorkoutDay?: unknown }[] | null };

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
    async changes({ http, since }): Promise<ChangedData | null> {
      const days: string[] = [];
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
        if (modified.length < PAGE_SIZE) break;
      }
      days.sort();
      const first = days[0];
      const last = days[days.length - 1];
      if (!first || !last) return null;
      return { types: ['activity', 'plannedWorkout'], startDate: first, endDate: addDays(last, 1) };
    },
  },
};
