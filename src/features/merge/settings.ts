// The merged view's settings (declared here, parsed once at boot by core/settings.ts).
import { defineSettings, numberSetting } from '../../core/settings.ts';

export const mergeSettings = defineSettings({
  id: 'merge',
  owner: 'features/merge',
  intro: ['Merged view (one person across connections).'],
  settings: {
    MERGED_EVENT_DELAY_SECONDS: numberSetting({
      description:
        'Seconds a `merged` webhook event waits after the first change to a person’s day, so that every change in that window goes out as one event (0 sends at once).',
      default: 10,
      integer: true,
      minimum: 0,
      problem: 'must be a whole number of seconds',
    }),
  },
  build: (v) => ({
    /** How long changes to one person's day are gathered into one `merged` event. */
    eventDelaySeconds: v.MERGED_EVENT_DELAY_SECONDS,
  }),
});
