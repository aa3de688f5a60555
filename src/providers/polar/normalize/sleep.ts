// Polar sleep night (GET /v3/users/sleep) + Nightly Recharge of the same night
// (GET /v3/users/nightly-recharge) -> Sleep, one per night, summary_id = the night's date.
//
// Cannot map: `continuity`/`continuity_class`, `sleep_charge`, `sleep_goal`, `sleep_rating`
// (user's own rating), `sleep_cycles`; recharge `ans_charge`/`ans_charge_status` (a -10..+10
// deviation from the user's norm, which no model field means) and `beat_to_beat_avg` (mean RR
// interval; Sleep has no RR field). A recharge without its sleep night is dropped: a Sleep needs
// start and end times, which only the night has.
// Mapped with care: hypnogram stages 0 wake / 1 REM / 2 lighter non-REM / 3 light non-REM /
// 4 deep non-REM / 5 unknown -> SleepLevel AWAKE / REM / LIGHT / LIGHT / DEEP / UNKNOWN (runs of
// one level merged); `unrecognized_sleep_stage` is sleep of unknown stage, so it counts as asleep
// and as unmeasurable sleep. `nightly_recharge_status` uses Polar's 6-step scale, the model's
// RecoveryLevel 1-6 word for word. `heart_rate_variability_avg` is RMSSD (spec). The recharge
// `heart_rate_avg` covers only the first four hours of sleep, so the night's average comes from
// its heart-rate samples and falls back to it only when the night has none. Sleep efficiency
// is computed (time asleep / time in bed).
import { heartRate } from '../../../provider-kit/normalize/measures.ts';
import {
  type CodeOf,
  HeartRateContext,
  type RecoveryLevel,
  SleepLevel,
  SleepUploadType,
} from '../../../model/enums.ts';
import type { Sleep } from '../../../model/sleep.ts';
import { formatDateTime } from '../../../model/time.ts';
import {
  contributorMap,
  instantOf,
  localizationOf,
  type NormalizeContext,
  statsOf,
  trailingOffsetMinutes,
} from '../../../provider-kit/normalize/normalize.ts';
import { sumOrNull } from '../../../provider-kit/normalize/units.ts';
import { clockSeries } from './time.ts';
import type { PolarNight, PolarNightlyRecharge } from './types.ts';

export type PolarSleepPayload = {
  sleep: readonly PolarNight[];
  nightly_recharge?: readonly PolarNightlyRecharge[];
};

type Level = CodeOf<typeof SleepLevel>;
const hypnogramLevels: readonly Level[] = [
  SleepLevel.AWAKE,
  SleepLevel.REM,
  SleepLevel.LIGHT,
  SleepLevel.LIGHT,
  SleepLevel.DEEP,
  SleepLevel.UNKNOWN,
];

type RecoveryCode = CodeOf<typeof RecoveryLevel>;
function recoveryLevel(status: number | null | undefined): RecoveryCode | null {
  return typeof status === 'number' && Number.isInteger(status) && status >= 1 && status <= 6
    ? (status as RecoveryCode)
    : null;
}

function hypnogram(night: PolarNight, startMs: number, offset: number) {
  const samples: { timestamp: string; level: Level }[] = [];
  let remEvents = 0;
  let wakeEvents = 0;
  let previous: Level | null = null;
  for (const { atMs, value } of clockSeries(night.hypnogram, startMs, offset)) {
    const level = hypnogramLevels[value] ?? SleepLevel.UNKNOWN;
    if (level === previous) continue;
    if (level === SleepLevel.REM) remEvents++;
    // A wake stage after sleep has begun is a wake-up; the hypnogram starts at sleep onset.
    if (level === SleepLevel.AWAKE && previous !== null) wakeEvents++;
    previous = level;
    samples.push({ timestamp: formatDateTime(atMs, offset), level });
  }
  return { samples, remEvents, wakeEvents };
}

export function normalizeNight(
  night: PolarNight,
  recharge: PolarNightlyRecharge | undefined,
  context: NormalizeContext,
): Sleep {
  const offset = trailingOffsetMinutes(night.sleep_start_time) ?? context.userOffsetMinutes ?? 0;
  const startMs = instantOf(night.sleep_start_time, offset);
  const endMs = instantOf(night.sleep_end_time, offset);
  const stages = night.hypnogram ? hypnogram(night, startMs, offset) : null;
  const hrSamples = clockSeries(night.heart_rate_samples, startMs, offset)
    .filter(({ value }) => heartRate(value) !== null)
    .map(({ atMs, value }) => ({
      timestamp: formatDateTime(atMs, offset),
      bpm: value,
      context: HeartRateContext.NOT_ACTIVE,
    }));
  const hr = statsOf(hrSamples.map((sample) => sample.bpm));
  const hrvSamples = clockSeries(recharge?.hrv_samples, startMs, offset).map(({ atMs, value }) => ({
    timestamp: formatDateTime(atMs, offset),
    hrv_rmssd: value,
  }));
  const breathSamples = clockSeries(recharge?.breathing_samples, startMs, offset).map(({ atMs, value }) => ({
    timestamp: formatDateTime(atMs, offset),
    breaths_per_min: value,
  }));
  const breaths = statsOf(breathSamples.map((sample) => sample.breaths_per_min));
  const asleep = sumOrNull(
    night.light_sleep,
    night.deep_sleep,
    night.rem_sleep,
    night.unrecognized_sleep_stage,
  );
  const inBed = Math.max(0, (endMs - startMs) / 1000);
  const score = night.sleep_score ?? null;
  const contributors = contributorMap({
    duration: night.group_duration_score,
    solidity: night.group_solidity_score,
    regeneration: night.group_regeneration_score,
  });

  return {
    metadata: {
      summary_id: night.date,
      start_time: formatDateTime(startMs, offset),
      end_time: formatDateTime(endMs, offset),
      upload_type: SleepUploadType.AUTOMATIC,
      is_nap: false,
      timestamp_localization: localizationOf(offset),
    },
    sleep_durations_data: {
      asleep: {
        duration_asleep_state_seconds: asleep,
        duration_light_sleep_state_seconds: night.light_sleep ?? null,
        duration_deep_sleep_state_seconds: night.deep_sleep ?? null,
        duration_REM_sleep_state_seconds: night.rem_sleep ?? null,
        num_REM_events: stages ? stages.remEvents : null,
      },
      awake: {
        duration_awake_state_seconds: night.total_interruption_duration ?? null,
        duration_short_interruption_seconds: night.short_interruption_duration ?? null,
        duration_long_interruption_seconds: night.long_interruption_duration ?? null,
        num_wakeup_events: stages ? stages.wakeEvents : null,
      },
      other: {
        duration_in_bed_seconds: inBed,
        duration_unmeasurable_sleep_seconds: night.unrecognized_sleep_stage ?? null,
      },
      hypnogram_samples: stages?.samples ?? [],
      sleep_efficiency: asleep !== null && inBed > 0 ? Math.min(100, (asleep / inBed) * 100) : null,
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: hr.avg ?? recharge?.heart_rate_avg ?? null,
        min_hr_bpm: hr.min,
        max_hr_bpm: hr.max,
        avg_hrv_rmssd: recharge?.heart_rate_variability_avg ?? null,
      },
      detailed: { hr_samples: hrSamples, hrv_samples_rmssd: hrvSamples },
    },
    respiration_data: recharge
      ? {
          breaths_data: {
            avg_breaths_per_min: recharge.breathing_rate_avg ?? breaths.avg,
            min_breaths_per_min: breaths.min,
            max_breaths_per_min: breaths.max,
            samples: breathSamples,
            start_time: breathSamples[0]?.timestamp ?? null,
            end_time: breathSamples[breathSamples.length - 1]?.timestamp ?? null,
          },
        }
      : null,
    readiness_data: recharge ? { recovery_level: recoveryLevel(recharge.nightly_recharge_status) } : null,
    scores: { sleep: score, sleep_score: score },
    data_enrichment: {
      sleep_score: score,
      sleep_contributors: contributors && Object.keys(contributors).length > 0 ? contributors : null,
    },
    device_data: night.device_id ? { manufacturer: 'Polar', serial_number: night.device_id } : null,
  };
}

export function normalizeSleep(payload: PolarSleepPayload, context: NormalizeContext): Sleep[] {
  const recharges = new Map<string, PolarNightlyRecharge>();
  for (const recharge of payload.nightly_recharge ?? []) recharges.set(recharge.date, recharge);
  return payload.sleep.map((night) => normalizeNight(night, recharges.get(night.date), context));
}
