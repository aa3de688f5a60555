// Menstruation records: where the day sits in the athlete's cycle (see cycle.ts).
import { MenstruationFlow } from '../../model/enums.ts';
import type { Menstruation } from '../../model/menstruation.ts';
import { dayNumberToIsoDate, localMidnightMs } from '../../model/time.ts';
import type { DayContext } from './context.ts';
import { cycleDay } from './cycle.ts';

/** Flow by period day: heavier on days 1-2, tapering after. */
const FLOW_BY_PERIOD_DAY = [
  MenstruationFlow.MEDIUM,
  MenstruationFlow.HEAVY,
  MenstruationFlow.MEDIUM,
  MenstruationFlow.LIGHT,
  MenstruationFlow.LIGHT,
  MenstruationFlow.LIGHT,
] as const;

export function generateMenstruation(context: DayContext): Menstruation[] {
  const day = cycleDay(context.seed, context.dayNumber);
  const { current } = day;
  const dateOfCycleDay = (dayInCycle: number) => dayNumberToIsoDate(day.cycleStartDay + dayInCycle - 1);
  const midnightOfCycleDay = (dayInCycle: number) =>
    context.time(localMidnightMs(dateOfCycleDay(dayInCycle), context.offsetMinutes));
  const onPeriod = day.dayInCycle <= day.periodLength;
  return [
    {
      metadata: {
        start_time: context.time(context.startMs),
        end_time: context.time(context.endMs),
        timestamp_localization: context.timestampLocalization,
      },
      menstruation_data: {
        period_length_days: day.periodLength,
        current_phase: current.interval,
        length_of_current_phase_days: current.lastDay - current.firstDay + 1,
        days_until_next_phase: current.lastDay - day.dayInCycle + 1,
        period_start_date: dateOfCycleDay(1),
        predicted_cycle_length_days: context.profile.meanCycleLengthDays,
        day_in_cycle: day.dayInCycle,
        last_updated_time: context.time(context.startMs + 8 * 3_600_000),
        cycle_length_days: day.cycleLength,
        is_predicted_cycle: false,
        menstruation_flow:
          context.withSamples && onPeriod
            ? [
                {
                  timestamp: context.time(context.startMs + 8 * 3_600_000),
                  flow: FLOW_BY_PERIOD_DAY[day.dayInCycle - 1] ?? MenstruationFlow.LIGHT,
                },
              ]
            : [],
        intervals: day.phases.map((span) => ({
          start_timestamp: midnightOfCycleDay(span.firstDay),
          end_timestamp: midnightOfCycleDay(span.lastDay + 1),
          phase: span.interval,
        })),
        fertility_window_start: dateOfCycleDay(day.ovulationDay - 4),
        fertility_window_end: dateOfCycleDay(day.ovulationDay + 1),
        ovulation_day: dateOfCycleDay(day.ovulationDay),
      },
    },
  ];
}
