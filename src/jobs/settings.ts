// The job queue's settings (declared here, parsed once at boot by core/settings.ts).
import { defineSettings, numberSetting } from '../core/settings.ts';

export const jobSettings = defineSettings({
  id: 'jobs',
  owner: 'jobs',
  intro: ['Job queue.'],
  settings: {
    JOB_CRASH_LIMIT: numberSetting({
      description:
        'Times a job may end its process (a crash, out of memory, a kill) before it is quarantined for the operator (dashboard: Quarantined jobs) instead of run again.',
      default: 2,
      integer: true,
      minimum: 1,
      maximum: 20,
      problem: 'must be a whole number from 1 to 20',
    }),
  },
  build: (v) => ({
    /** Process deaths while running one job before it is quarantined. */
    crashLimit: v.JOB_CRASH_LIMIT,
  }),
});
