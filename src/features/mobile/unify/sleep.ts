// The sleep sessions of one sleep day.
import type { Sleep } from '../../../model/index.ts';
import { SleepLevel, SleepUploadType } from '../../../model/enums.ts';
import { formatDateTime, localIsoDate } from '../../../model/time.ts';
import type { MobileSample } from '../../../provider-kit/mobile/samples.ts';
import { localizationOf } from '../../../provider-kit/normalize/normalize.ts';
import { rankSources } from '../source-choice.ts';
import { round, SLEEP_SESSION_GAP_MS } from './shared.ts';

/** Identity of the n-th sleep session of a sleep day (sessions are rebuilt whole, in order). */
export const SLEEP_KEY_PREFIX = 'mobile-sleep:';
export const sleepKey = (day: string, index: number) => `${SLEEP_KEY_PREFIX}${day}:${index}`;

/** The sleep sessions of one sleep day, from the best source's stage samples. */
export function buildSleeps(day: string, samples: readonly MobileSample[]): Sleep[] {
  const all = samples.filter((sample) => sample.kind === 'sleep');
  // Stage samples (Apple Watch, Health Connect stages) outrank plain "in bed" samples.
  const groups = rankSources(all, 'sleep');
  const best = groups.find((group) => group.samples.some((s) => s.level !== SleepLevel.UNKNOWN)) ?? groups[0];
  if (!best) return [];
  const sorted = [...best.samples].sort((a, b) => a.startMs - b.startMs);
  const sessions: MobileSample[][] = [];
  let end = -Infinity;
  for (const sample of sorted) {
    if (sample.startMs - end > SLEEP_SESSION_GAP_MS) sessions.push([]);
    sessions.at(-1)!.push(sample);
    end = Math.max(end, sample.endMs);
  }
  return sessions.map((session, index) => {
    const offset = session[0]!.offsetMinutes;
    const at = (ms: number) => formatDateTime(ms, offset);
    const start = session[0]!.startMs;
    const finish = Math.max(...session.map((s) => s.endMs));
    const stages = session.filter((s) => s.level !== SleepLevel.UNKNOWN);
    const seconds = (levels: number[]) =>
      stages
        .filter((s) => levels.includes(s.level ?? -1))
        .reduce((t, s) => t + (s.endMs - s.startMs) / 1000, 0);
    const asleep = seconds([SleepLevel.SLEEPING, SleepLevel.LIGHT, SleepLevel.DEEP, SleepLevel.REM]);
    const inBed = (finish - start) / 1000;
    return {
      metadata: {
        start_time: at(start),
        end_time: at(finish),
        upload_type: SleepUploadType.AUTOMATIC,
        is_nap:
          inBed < 3 * 3600 &&
          localIsoDate(start, offset) === day &&
          new Date(start + offset * 60_000).getUTCHours() >= 10,
        summary_id: sleepKey(day, index),
        timestamp_localization: localizationOf(offset),
      },
      sleep_durations_data: {
        asleep: {
          duration_asleep_state_seconds: asleep,
          duration_light_sleep_state_seconds: seconds([SleepLevel.LIGHT]),
          duration_deep_sleep_state_seconds: seconds([SleepLevel.DEEP]),
          duration_REM_sleep_state_seconds: seconds([SleepLevel.REM]),
        },
        awake: { duration_awake_state_seconds: seconds([SleepLevel.AWAKE]) },
        other: { duration_in_bed_seconds: inBed },
        hypnogram_samples: stages.map((s) => ({ timestamp: at(s.startMs), level: s.level ?? 0 })) as never,
        sleep_efficiency: inBed > 0 ? round((asleep / inBed) * 100) : null,
      },
      device_data: { name: best.name, data_provided: ['SLEEP_TYPE'] },
    } as Sleep;
  });
}
