// The day companions' settings (declared here, parsed once at boot by core/settings.ts).
import { defineSettings, numberSetting } from '../../core/settings.ts';

export const dayCompanionsSettings = defineSettings({
  id: 'day-companions',
  owner: 'features/day-companions',
  intro: ['Day companions.'],
  settings: {
    // Companions of a day arrive within minutes to hours of each other (a sync's pings of each
    // type, a backfill's answer of each type), and a day keeps changing while the watch syncs it,
    // that day and the next ones: a month covers that many times over. A day changed later still
    // (an activity edited in the provider's app weeks on) is normalized from what that
    // notification brings. Kept no longer by default than raw payloads are: they are the same
    // provider data, and the records are what is stored for good.
    DAY_COMPANIONS_RETENTION_DAYS: numberSetting({
      description:
        "Days a day's provider summaries are kept after its last write, so a day whose summary kinds the provider notifies apart is built from all of them.",
      default: 30,
      integer: true,
      minimum: 1,
      problem: 'must be a whole number of days, at least 1',
    }),
  },
  build: (v) => ({
    /** Days a day's kept summaries outlive its last write. */
    retentionDays: v.DAY_COMPANIONS_RETENTION_DAYS,
  }),
});
