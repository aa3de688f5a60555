// Unified planned-workout steps <-> Intervals.icu's workout text. Intervals.icu builds a
// structured workout from the event's `description` written in its workout-builder syntax
// (forum.intervals.icu "Workout Builder Syntax Quick Guide", t/123701): one step per line
// `- [cue] <duration|distance> [target] [cadence]`; durations `1h2m30s`; distances `500mtr` or
// `2km` (`m` alone means minutes); power `75%`/`95-105%` of FTP or `220w`/`200-240w`; heart rate
// `70% HR`/`75-80% HR` of max HR or `95% LTHR` of threshold HR; pace `5:00/km Pace` or `78-82%
// Pace` of threshold pace; cadence `90rpm`; a repeat is a line `5x`
// followed by its steps, with a blank line before and after; repeats do not nest.
//
// A step this syntax cannot say (a duration by calories, heart rate or power reached, an open
// step, a nested repeat, a target in absolute bpm) is refused with a 400 naming the step,
// rather than written as something else.
import { badRequest } from '../../core/errors.ts';
import {
  plannedWorkoutDurationTypes,
  plannedWorkoutStepKinds,
  plannedWorkoutTargetTypes,
} from '../../model/planned-workout-enums.ts';
import type {
  PlannedWorkoutDetails,
  PlannedWorkoutStep,
  PlannedWorkoutSteps,
} from '../../model/planned-workout.ts';

type Step = PlannedWorkoutStep | PlannedWorkoutSteps;
type Duration = NonNullable<Step['durations']>[number];
type Target = NonNullable<Step['targets']>[number];

/** A name of `names` given by name (any case) or by its number (stored bodies hold numbers). */
function nameOf<const N extends readonly string[]>(names: N, value: unknown): N[number] | null {
  if (typeof value === 'number') return Number.isInteger(value) ? (names[value] ?? null) : null;
  if (typeof value !== 'string') return null;
  const upper = value.toUpperCase();
  return names.find((name) => name.toUpperCase() === upper) ?? null;
}

const text = (value: number) => String(Math.round(value * 100) / 100);

export function durationText(seconds: number): string {
  const whole = Math.round(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s || whole === 0 ? `${s}s` : ''}`;
}

export function distanceText(meters: number): string {
  return meters % 1000 === 0 ? `${meters / 1000}km` : `${Math.round(meters)}mtr`;
}

/** `mm:ss` of a pace in minutes per kilometre. */
function paceText(minutesPerKm: number): string {
  const total = Math.round(minutesPerKm * 60);
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}/km`;
}

const range = (low: number | null | undefined, high: number | null | undefined, unit: string) => {
  if (typeof low === 'number' && typeof high === 'number')
    return low === high ? `${text(low)}${unit}` : `${text(low)}-${text(high)}${unit}`;
  const one = typeof low === 'number' ? low : high;
  return typeof one === 'number' ? `${text(one)}${unit}` : null;
};

/** `55-65%<suffix>` or `60%<suffix>`; null when the target names no percentage. */
function percentOf(
  low: number | null | undefined,
  high: number | null | undefined,
  one: number | null | undefined,
  suffix: string,
): string | null {
  const written = range(low, high, '%') ?? range(one, null, '%');
  return written ? `${written}${suffix}` : null;
}

function stepLabel(step: Step, where: string) {
  return step.name ? `${where} ("${step.name}")` : where;
}

function durationPart(step: Step, where: string): string {
  const duration: Duration | undefined = (step.durations ?? [])[0];
  const kind = nameOf(plannedWorkoutDurationTypes, duration?.duration_type);
  if ((kind === 'TIME' || kind === 'FIXED_REST') && (duration?.seconds ?? duration?.rest_seconds)) {
    return durationText((duration.seconds ?? duration.rest_seconds)!);
  }
  if (kind === 'DISTANCE_METERS' && duration?.distance_meters) return distanceText(duration.distance_meters);
  throw badRequest(
    `${stepLabel(step, where)}: Intervals.icu steps last a time or a distance; ${String(kind ?? 'no duration')} cannot be written there`,
  );
}

function targetPart(target: Target, step: Step, where: string): string | null {
  const kind = nameOf(plannedWorkoutTargetTypes, target.target_type);
  switch (kind) {
    case null:
    case 'OPEN':
      return null;
    case 'POWER':
      return (
        range(target.power_percentage_low, target.power_percentage_high, '%') ??
        range(target.power_percentage, null, '%') ??
        range(target.power_watt_low, target.power_watt_high, 'w') ??
        range(target.power_watt, null, 'w')
      );
    case 'HEART_RATE': {
      const percent =
        range(target.hr_percentage_low, target.hr_percentage_high, '%') ??
        range(target.hr_percentage, null, '%');
      if (percent) return `${percent} HR`;
      throw badRequest(
        `${stepLabel(step, where)}: Intervals.icu takes heart-rate targets as a percentage of max HR, not in bpm`,
      );
    }
    case 'POWER_PERCENTAGE':
      // The guide's `75%`/`95-105%`: a bare percentage is of FTP.
      return percentOf(
        target.power_percentage_low,
        target.power_percentage_high,
        target.power_percentage,
        '',
      );
    case 'HEART_RATE_MAX_PERCENTAGE':
      return percentOf(target.hr_percentage_low, target.hr_percentage_high, target.hr_percentage, ' HR');
    case 'HEART_RATE_THRESHOLD_PERCENTAGE':
      return percentOf(target.hr_percentage_low, target.hr_percentage_high, target.hr_percentage, ' LTHR');
    case 'SPEED_PERCENTAGE':
      // `% Pace` is a percentage of threshold pace read as speed (more is faster) [unconfirmed].
      return percentOf(
        target.speed_percentage_low,
        target.speed_percentage_high,
        target.speed_percentage,
        ' Pace',
      );
    case 'PACE':
      return typeof target.pace_minutes_per_kilometer === 'number'
        ? `${paceText(target.pace_minutes_per_kilometer)} Pace`
        : null;
    case 'CADENCE':
      return range(target.cadence_low, target.cadence_high, 'rpm') ?? range(target.cadence, null, 'rpm');
    default:
      throw badRequest(`${stepLabel(step, where)}: target ${kind} has no Intervals.icu form`);
  }
}

function stepLine(step: Step, where: string): string {
  const parts: string[] = [];
  // The cue text comes before the duration; a line may not start with a digit-led cue.
  const cue = (step.name ?? '').replace(/[\r\n]+/g, ' ').trim();
  if (cue) parts.push(cue);
  parts.push(durationPart(step, where));
  for (const target of step.targets ?? []) {
    const part = targetPart(target, step, where);
    if (part) parts.push(part);
  }
  return `- ${parts.join(' ')}`;
}

const isRepeat = (step: Step) =>
  ['PlannedWorkoutRepeatStep', 'REPEAT_STEP'].includes(nameOf(plannedWorkoutStepKinds, step.type) ?? '') ||
  Array.isArray((step as PlannedWorkoutSteps).steps);

function repeatCount(step: Step, where: string): number {
  const reps = (step.durations ?? []).find(
    (duration) => nameOf(plannedWorkoutDurationTypes, duration.duration_type) === 'REPS',
  )?.reps;
  if (typeof reps === 'number' && Number.isInteger(reps) && reps > 0) return reps;
  throw badRequest(`${where}: a repeat step needs a REPS duration with a whole count`);
}

/** The workout text for `steps` (blank-line-separated repeat blocks). */
export function workoutText(steps: readonly PlannedWorkoutSteps[]): string {
  const blocks: string[] = [];
  let plain: string[] = [];
  steps.forEach((step, index) => {
    const where = `steps[${index}]`;
    if (!isRepeat(step)) {
      plain.push(stepLine(step, where));
      return;
    }
    if (plain.length) blocks.push(plain.join('\n'));
    plain = [];
    const inner = (step as PlannedWorkoutSteps).steps ?? [];
    if (inner.length === 0) throw badRequest(`${where}: a repeat step without steps`);
    const lines = inner.map((child, childIndex) => {
      if (isRepeat(child))
        throw badRequest(`${where}.steps[${childIndex}]: Intervals.icu repeats do not nest`);
      return stepLine(child, `${where}.steps[${childIndex}]`);
    });
    blocks.push([`${repeatCount(step, where)}x`, ...lines].join('\n'));
  });
  if (plain.length) blocks.push(plain.join('\n'));
  return blocks.join('\n\n');
}

/** The event `description`: the workout's own description, then its steps. */
export function eventDescription(details: PlannedWorkoutDetails): string {
  const intro = details.metadata?.description?.trim();
  const steps = workoutText(details.steps ?? []);
  return [intro, steps].filter((part) => part).join('\n\n');
}

const LINE = /^-\s+(.*)$/;
const DURATION = /^(?:(\d+)h)?(?:(\d+)m(?!tr))?(?:(\d+)s)?$/;

/** Steps read back from a workout text this module wrote (what it cannot read is skipped). */
export function stepsOfText(description: string | null | undefined): PlannedWorkoutSteps[] {
  const steps: PlannedWorkoutSteps[] = [];
  let repeat: PlannedWorkoutSteps | null = null;
  let order = 0;
  for (const raw of (description ?? '').split('\n')) {
    const line = raw.trim();
    if (line === '') {
      repeat = null;
      continue;
    }
    const count = /^(\d+)x$/.exec(line);
    if (count) {
      repeat = {
        type: 'PlannedWorkoutRepeatStep',
        order: order++,
        durations: [
          { type: 'RepsPlannedWorkoutStepDuration', duration_type: 'REPS', reps: Number(count[1]) },
        ],
        steps: [],
      };
      steps.push(repeat);
      continue;
    }
    const body = LINE.exec(line)?.[1];
    if (!body) continue;
    const step = parseStep(body);
    if (!step) continue;
    if (repeat) repeat.steps!.push({ ...step, order: repeat.steps!.length });
    else steps.push({ ...step, order: order++ });
  }
  return steps;
}

function parseStep(body: string): PlannedWorkoutStep | null {
  const words = body.split(/\s+/);
  const at = words.findIndex((word) => DURATION.test(word) || /^\d+(\.\d+)?(km|mtr)$/.test(word));
  if (at < 0) return null;
  const word = words[at]!;
  const name = words.slice(0, at).join(' ') || null;
  let duration: Duration;
  const distance = /^(\d+(?:\.\d+)?)(km|mtr)$/.exec(word);
  if (distance) {
    const meters = Number(distance[1]) * (distance[2] === 'km' ? 1000 : 1);
    duration = {
      type: 'DistancePlannedWorkoutStepDuration',
      duration_type: 'DISTANCE_METERS',
      distance_meters: meters,
    };
  } else {
    const [, h, m, s] = DURATION.exec(word)!;
    const seconds = Number(h ?? 0) * 3600 + Number(m ?? 0) * 60 + Number(s ?? 0);
    duration = { type: 'TimePlannedWorkoutStepDuration', duration_type: 'TIME', seconds };
  }
  const targets: Target[] = [];
  const rest = words.slice(at + 1).join(' ');
  const band = (match: RegExpExecArray) => [Number(match[1]), Number(match[2] ?? match[1])] as const;
  let match: RegExpExecArray | null;
  if ((match = /(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?% LTHR/.exec(rest))) {
    const [low, high] = band(match);
    targets.push({
      type: 'HRPlannedWorkoutStepTarget',
      target_type: 'HEART_RATE_THRESHOLD_PERCENTAGE',
      hr_percentage_low: low,
      hr_percentage_high: high,
    });
  } else if ((match = /(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?% Pace/.exec(rest))) {
    const [low, high] = band(match);
    targets.push({
      type: 'SpeedPlannedWorkoutStepTarget',
      target_type: 'SPEED_PERCENTAGE',
      speed_percentage_low: low,
      speed_percentage_high: high,
    });
  } else if ((match = /(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?% HR/.exec(rest))) {
    const [low, high] = band(match);
    targets.push({
      type: 'HRPlannedWorkoutStepTarget',
      target_type: 'HEART_RATE',
      hr_percentage_low: low,
      hr_percentage_high: high,
    });
  } else if ((match = /(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?%/.exec(rest))) {
    const [low, high] = band(match);
    targets.push({
      type: 'PowerPlannedWorkoutStepTarget',
      target_type: 'POWER',
      power_percentage_low: low,
      power_percentage_high: high,
    });
  } else if ((match = /(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?w\b/.exec(rest))) {
    const [low, high] = band(match);
    targets.push({
      type: 'PowerPlannedWorkoutStepTarget',
      target_type: 'POWER',
      power_watt_low: low,
      power_watt_high: high,
    });
  }
  if ((match = /(\d+):(\d{2})\/km Pace/.exec(rest))) {
    targets.push({
      type: 'PacePlannedWorkoutStepTarget',
      target_type: 'PACE',
      pace_minutes_per_kilometer: Number(match[1]) + Number(match[2]) / 60,
    });
  }
  if ((match = /(\d+)(?:-(\d+))?rpm/.exec(rest))) {
    const [low, high] = band(match);
    targets.push({
      type: 'CadencePlannedWorkoutStepTarget',
      target_type: 'CADENCE',
      cadence_low: low,
      cadence_high: high,
    });
  }
  return { type: 'PlannedWorkoutStep', name, durations: [duration], targets };
}
