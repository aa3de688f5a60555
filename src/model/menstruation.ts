// Menstruation: one day of cycle tracking (docs/wire-contract.md#data-model).
// Identity: start_time + end_time.
import Type, { type Static } from 'typebox';
import { MenstruationIntervalSchema } from './enums.ts';
import { MenstruationFlowSample, MenstruationIntervalSample } from './samples.ts';
import {
  Nullable,
  NullableArray,
  NullableBoolean,
  NullableDateTime,
  NullableInteger,
  NullableString,
} from './schema-helpers.ts';
import { dayBounds, timestampLocalization } from './shared.ts';

export const MenstruationData = Type.Object(
  {
    period_length_days: NullableInteger(),
    /** The integer `MenstruationInterval` (the SDK's string phase is converted on the way in: legacy-shapes.ts). */
    current_phase: Nullable(MenstruationIntervalSchema),
    length_of_current_phase_days: NullableInteger(),
    days_until_next_phase: NullableInteger(),
    period_start_date: NullableString({ description: 'ISO date' }),
    predicted_cycle_length_days: NullableInteger(),
    day_in_cycle: NullableInteger({ description: '1 on the first day of the period' }),
    last_updated_time: NullableDateTime(),
    /** Days (the SDK's string "28" is converted on the way in). */
    cycle_length_days: NullableInteger(),
    /** The SDK's string "false" is converted on the way in. */
    is_predicted_cycle: NullableBoolean(),
    menstruation_flow: NullableArray(MenstruationFlowSample),
    intervals: NullableArray(MenstruationIntervalSample),
    fertility_window_start: NullableString({ description: 'ISO date' }),
    fertility_window_end: NullableString({ description: 'ISO date' }),
    ovulation_day: NullableString({ description: 'ISO date' }),
  },
  { title: 'MenstruationData' },
);

export const Menstruation = Type.Object(
  {
    metadata: Type.Object(
      { ...dayBounds, timestamp_localization: timestampLocalization },
      { title: 'MenstruationMetadata' },
    ),
    menstruation_data: Nullable(MenstruationData),
  },
  {
    $id: 'Menstruation',
    title: 'Menstruation',
    description: 'One day of menstrual-cycle tracking. Identity: start_time + end_time.',
  },
);

export type Menstruation = Static<typeof Menstruation>;
