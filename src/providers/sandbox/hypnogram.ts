// Sleep stages for one session, on a 30-second grid, and the durations derived from them.
//
// Rule (tested): each hypnogram sample starts a stage that lasts until the next sample, the last
// one until `metadata.end_time`. Summing those spans per level gives exactly the durations in
// `sleep_durations_data`, and all spans together give `duration_in_bed_seconds`.
import { SleepLevel } from '../../model/enums.ts';
import { Random } from './random.ts';
import type { TimeWindow } from './sleep-window.ts';

const UNIT_SECONDS = 30;
/** Interruptions longer than this are "long" (reference: > 90 s). */
const LONG_INTERRUPTION_SECONDS = 90;

export type StageLevel =
  typeof SleepLevel.AWAKE | typeof SleepLevel.LIGHT | typeof SleepLevel.DEEP | typeof SleepLevel.REM;

export interface StageSegment {
  level: StageLevel;
  startMs: number;
  seconds: number;
}

export interface StageDurations {
  deepSeconds: number;
  lightSeconds: number;
  remSeconds: number;
  asleepSeconds: number;
  awakeSeconds: number;
  inBedSeconds: number;
  remEvents: number;
  wakeupEvents: number;
  latencySeconds: number;
  wakeUpLatencySeconds: number;
  longInterruptionSeconds: number;
  shortInterruptionSeconds: number;
}

export function buildHypnogram(streamKey: string, window: TimeWindow, isNap: boolean): StageSegment[] {
  const random = new Random(streamKey, 'hypnogram');
  const totalUnits = Math.round((window.endMs - window.startMs) / 1000 / UNIT_SECONDS);
  const latency = isNap ? random.int(2, 10) : random.int(8, 48);
  const wake = isNap ? random.int(1, 4) : random.int(2, 16);
  const units: [StageLevel, number][] = [[SleepLevel.AWAKE, latency]];
  let remaining = totalUnits - latency - wake;
  const push = (level: StageLevel, count: number) => {
    const taken = Math.min(remaining, Math.max(1, Math.round(count)));
    if (taken > 0) units.push([level, taken]);
    remaining -= taken;
  };
  for (let cycle = 0; remaining > 0; cycle++) {
    const cycleUnits = isNap ? remaining : random.int(170, 210);
    const deepShare = isNap ? random.between(0, 0.15) : Math.max(0.05, 0.38 - 0.09 * cycle);
    const remShare = isNap ? 0 : Math.min(0.4, 0.12 + 0.07 * cycle);
    const lightUnits = cycleUnits * (1 - deepShare - remShare);
    push(SleepLevel.LIGHT, lightUnits * 0.55);
    if (deepShare > 0.01) push(SleepLevel.DEEP, cycleUnits * deepShare);
    push(SleepLevel.LIGHT, lightUnits * 0.45);
    if (remShare > 0) push(SleepLevel.REM, cycleUnits * remShare);
    if (!isNap && random.chance(0.35)) push(SleepLevel.AWAKE, random.int(1, 8));
  }
  units.push([SleepLevel.AWAKE, wake]);
  return toSegments(units, window.startMs);
}

/** Merges neighbours of the same level and places each stage on the clock. */
function toSegments(units: readonly (readonly [StageLevel, number])[], startMs: number): StageSegment[] {
  const segments: StageSegment[] = [];
  let cursorMs = startMs;
  for (const [level, count] of units) {
    const seconds = count * UNIT_SECONDS;
    const last = segments[segments.length - 1];
    if (last && last.level === level) last.seconds += seconds;
    else segments.push({ level, startMs: cursorMs, seconds });
    cursorMs += seconds * 1000;
  }
  return segments;
}

export function stageDurations(segments: readonly StageSegment[]): StageDurations {
  const total = (level: StageLevel) =>
    segments.filter((segment) => segment.level === level).reduce((sum, segment) => sum + segment.seconds, 0);
  const first = segments[0];
  const last = segments[segments.length - 1];
  const latencySeconds = first?.level === SleepLevel.AWAKE ? first.seconds : 0;
  const wakeUpLatencySeconds = last?.level === SleepLevel.AWAKE && segments.length > 1 ? last.seconds : 0;
  const interruptions = segments.slice(1, -1).filter((segment) => segment.level === SleepLevel.AWAKE);
  const deepSeconds = total(SleepLevel.DEEP);
  const lightSeconds = total(SleepLevel.LIGHT);
  const remSeconds = total(SleepLevel.REM);
  const awakeSeconds = total(SleepLevel.AWAKE);
  return {
    deepSeconds,
    lightSeconds,
    remSeconds,
    asleepSeconds: deepSeconds + lightSeconds + remSeconds,
    awakeSeconds,
    inBedSeconds: segments.reduce((sum, segment) => sum + segment.seconds, 0),
    remEvents: segments.filter((segment) => segment.level === SleepLevel.REM).length,
    wakeupEvents: interruptions.length,
    latencySeconds,
    wakeUpLatencySeconds,
    longInterruptionSeconds: interruptions
      .filter((segment) => segment.seconds > LONG_INTERRUPTION_SECONDS)
      .reduce((sum, segment) => sum + segment.seconds, 0),
    shortInterruptionSeconds: interruptions
      .filter((segment) => segment.seconds <= LONG_INTERRUPTION_SECONDS)
      .reduce((sum, segment) => sum + segment.seconds, 0),
  };
}

/** The stage in effect at an instant (AWAKE outside the session). */
export function stageAt(segments: readonly StageSegment[], epochMs: number): StageLevel {
  for (const segment of segments) {
    if (epochMs >= segment.startMs && epochMs < segment.startMs + segment.seconds * 1000)
      return segment.level;
  }
  return SleepLevel.AWAKE;
}
