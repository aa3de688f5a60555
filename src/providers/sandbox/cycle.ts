// The menstrual cycle, as a pure function of (seed, day).
//
// Cycles sit on a jittered grid instead of following one another from a running state: cycle
// k nominally starts at anchor + k * meanLength and is moved by up to two days either way.
// Lengths therefore vary (mean ± 4 days) while any day's cycle is found in O(1), and a date
// range never changes what a given day looks like.
import type { MenstrualPhase } from '../../model/enums.ts';
import { MenstruationInterval } from '../../model/enums.ts';
import type { DayContext } from './context.ts';
import { athleteProfile } from './profile.ts';
import { hashString, Random } from './random.ts';

export interface CyclePhaseSpan {
  phase: MenstrualPhase;
  interval: (typeof MenstruationInterval)[keyof typeof MenstruationInterval];
  /** Days in cycle, 1-based, inclusive. */
  firstDay: number;
  lastDay: number;
}

export interface CycleDay {
  /** Day number (days since 1970-01-01) of the cycle's first period day. */
  cycleStartDay: number;
  cycleLength: number;
  periodLength: number;
  /** Day in cycle of ovulation, 1-based. */
  ovulationDay: number;
  /** Day in cycle of the asked-for day, 1-based. */
  dayInCycle: number;
  phases: CyclePhaseSpan[];
  current: CyclePhaseSpan;
}

function cycleStart(seed: string, meanLength: number, anchor: number, index: number): number {
  const jitter = (hashString(`${seed}|cycle-start|${index}`) % 5) - 2;
  return anchor + index * meanLength + jitter;
}

export function cycleDay(seed: string, dayNumber: number): CycleDay {
  const meanLength = athleteProfile(seed).meanCycleLengthDays;
  const anchor = hashString(`${seed}|cycle-anchor`) % meanLength;
  let index = Math.floor((dayNumber - anchor) / meanLength);
  if (dayNumber < cycleStart(seed, meanLength, anchor, index)) index--;
  else if (dayNumber >= cycleStart(seed, meanLength, anchor, index + 1)) index++;
  const start = cycleStart(seed, meanLength, anchor, index);
  const length = cycleStart(seed, meanLength, anchor, index + 1) - start;
  const random = new Random(seed, 'cycle', String(index));
  const periodLength = random.int(4, 6);
  // The luteal phase is the steady part (about two weeks); cycle length varies before ovulation.
  const ovulationDay = length - random.int(13, 15);
  const phases = phaseSpans(length, periodLength, ovulationDay);
  const dayInCycle = dayNumber - start + 1;
  const current =
    phases.find((span) => dayInCycle >= span.firstDay && dayInCycle <= span.lastDay) ?? phases[0];
  if (!current) throw new Error('cycle without phases');
  return {
    cycleStartDay: start,
    cycleLength: length,
    periodLength,
    ovulationDay,
    dayInCycle,
    phases,
    current,
  };
}

function phaseSpans(length: number, periodLength: number, ovulationDay: number): CyclePhaseSpan[] {
  const spans: CyclePhaseSpan[] = [
    { phase: 'menstrual', interval: MenstruationInterval.PERIOD, firstDay: 1, lastDay: periodLength },
    {
      phase: 'follicular',
      interval: MenstruationInterval.FOLLICULAR,
      firstDay: periodLength + 1,
      lastDay: ovulationDay - 5,
    },
    {
      phase: 'fertile',
      interval: MenstruationInterval.FERTILE_WINDOW,
      firstDay: Math.max(periodLength + 1, ovulationDay - 4),
      lastDay: ovulationDay - 1,
    },
    {
      phase: 'ovulation',
      interval: MenstruationInterval.OVULATION,
      firstDay: ovulationDay,
      lastDay: ovulationDay,
    },
    {
      phase: 'luteal',
      interval: MenstruationInterval.LUTEAL,
      firstDay: ovulationDay + 1,
      lastDay: length - 3,
    },
    { phase: 'pms', interval: MenstruationInterval.PMS, firstDay: length - 2, lastDay: length },
  ];
  return spans.filter((span) => span.lastDay >= span.firstDay);
}

export function isLutealPhase(context: DayContext): boolean {
  const day = cycleDay(context.seed, context.dayNumber);
  return day.dayInCycle > day.ovulationDay;
}

export interface HormoneLevels {
  lh: number;
  e3g: number;
  pdg: number;
  hcg: number;
  fsh: number;
}

/**
 * Typical urinary hormone curves around ovulation (x = days from ovulation): LH surges the day
 * before, E3G climbs through the follicular phase and peaks before the surge, PdG rises after
 * ovulation and falls before the period, FSH has a small mid-cycle peak; hCG stays negative.
 */
export function hormoneLevels(day: CycleDay, random: Random): HormoneLevels {
  const x = day.dayInCycle - day.ovulationDay;
  const noise = () => random.between(0.9, 1.1);
  const lhSurge =
    x === -1
      ? random.between(25, 45)
      : x === 0
        ? random.between(14, 28)
        : x === -2
          ? random.between(8, 13)
          : 0;
  const lh = lhSurge || random.between(2.5, 6.5);
  const e3g =
    x < -6
      ? 45 + 2 * Math.max(0, day.dayInCycle - day.periodLength)
      : x < 0
        ? 80 + 35 * (x + 7)
        : x === 0
          ? 140
          : x <= 9
            ? 110 + 6 * Math.min(x, 7)
            : 110 - 12 * (x - 9);
  const pdg = x <= 0 ? 0.8 : x <= 7 ? 1 + 1.4 * x : Math.max(1, 10.8 - 1.3 * (x - 7));
  const fsh =
    x === -1 || x === 0
      ? random.between(10, 15)
      : day.dayInCycle <= 4
        ? random.between(6.5, 9)
        : random.between(4, 7);
  return { lh, e3g: Math.max(20, e3g) * noise(), pdg: pdg * noise(), hcg: random.between(0.1, 1.2), fsh };
}
