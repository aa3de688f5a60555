// The data feature's settings (declared here, parsed once at boot by core/settings.ts).
import { Type } from 'typebox';
import { ConfigError, customSetting, defineSettings, numberSetting } from '../../core/settings.ts';

export const DEFAULT_ARRIVAL_MINUTES = 15;

export const dataSettings = defineSettings({
  id: 'data',
  owner: 'features/data',
  intro: ['Data.'],
  settings: {
    RAW_PAYLOAD_RETENTION_DAYS: numberSetting({
      description: 'Days raw provider payloads are kept for re-normalization (0 keeps none).',
      default: 30,
      integer: true,
      minimum: 0,
      problem: 'must be a whole number of days (0 keeps none)',
    }),
    SANDBOX_ARRIVAL_MINUTES: customSetting({
      description:
        'Minutes between simulated arrivals of new data from the simulated (sandbox) providers, pushed as data events (1 to 1440; 0 or off disables).',
      schema: Type.Union([Type.Integer({ minimum: 1, maximum: 1440 }), Type.Null()], {
        default: DEFAULT_ARRIVAL_MINUTES,
      }),
      example: String(DEFAULT_ARRIVAL_MINUTES),
      parse: (input) => {
        const raw = input?.trim();
        if (raw === undefined || raw === '') return DEFAULT_ARRIVAL_MINUTES;
        if (raw === 'off' || raw === '0') return null;
        const minutes = Number(raw);
        if (!Number.isInteger(minutes) || minutes < 1 || minutes > 1440) {
          throw new ConfigError(
            `SANDBOX_ARRIVAL_MINUTES must be a whole number of minutes from 1 to 1440, or off; got "${raw}"`,
          );
        }
        return minutes;
      },
    }),
  },
  build: (v) => ({
    /** Days raw provider payloads are kept (0 keeps none). */
    rawRetentionDays: v.RAW_PAYLOAD_RETENTION_DAYS,
    /** Minutes between sandbox arrivals; null: off. */
    arrivalMinutes: v.SANDBOX_ARRIVAL_MINUTES,
  }),
});
