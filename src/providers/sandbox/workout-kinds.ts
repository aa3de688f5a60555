// The kinds of workout the sandbox athlete does, with the ranges their simulation draws from.

import type { ActivityType as ActivityTypeCode } from '../../model/activity-type.ts';
import { ActivityType } from '../../model/activity-type.ts';
import type { WorkoutKindKey } from './profile.ts';

export interface WorkoutKind {
  key: WorkoutKindKey;
  activityType: ActivityTypeCode;
  label: string;
  outdoor: boolean;
  /** Covers distance (speed, distance and lap samples). */
  moving: boolean;
  speedRange: readonly [number, number];
  cadenceRange: readonly [number, number] | null;
  hasPower: boolean;
  /** Steps per cadence revolution: 2 for running and walking (cadence counts strides). */
  stepsPerRevolution: number;
  intensityRange: readonly [number, number];
  durationMinutes: readonly [number, number];
  lapMeters: number | null;
}

const outdoorDefaults = { outdoor: true, moving: true, hasPower: false } as const;
const indoorStill = {
  outdoor: false,
  moving: false,
  speedRange: [0, 0],
  cadenceRange: null,
  hasPower: false,
  stepsPerRevolution: 0,
  lapMeters: null,
} as const;

export const WORKOUT_KINDS: Record<WorkoutKindKey, WorkoutKind> = {
  run: {
    ...outdoorDefaults,
    key: 'run',
    activityType: ActivityType.RUNNING,
    label: 'Run',
    speedRange: [2.5, 3.4],
    cadenceRange: [80, 90],
    stepsPerRevolution: 2,
    intensityRange: [0.62, 0.8],
    durationMinutes: [30, 75],
    lapMeters: 1000,
  },
  ride: {
    ...outdoorDefaults,
    key: 'ride',
    activityType: ActivityType.ROAD_BIKING,
    label: 'Ride',
    speedRange: [6.5, 8.8],
    cadenceRange: [80, 95],
    hasPower: true,
    stepsPerRevolution: 0,
    intensityRange: [0.55, 0.72],
    durationMinutes: [45, 120],
    lapMeters: 5000,
  },
  walk: {
    ...outdoorDefaults,
    key: 'walk',
    activityType: ActivityType.WALKING,
    label: 'Walk',
    speedRange: [1.25, 1.6],
    cadenceRange: [52, 60],
    stepsPerRevolution: 2,
    intensityRange: [0.28, 0.4],
    durationMinutes: [25, 60],
    lapMeters: 1000,
  },
  swim: {
    key: 'swim',
    activityType: ActivityType.SWIMMING_SWIMMING_POOL,
    label: 'Pool Swim',
    outdoor: false,
    moving: true,
    speedRange: [0.9, 1.25],
    cadenceRange: [24, 32],
    hasPower: false,
    stepsPerRevolution: 0,
    intensityRange: [0.55, 0.7],
    durationMinutes: [30, 50],
    lapMeters: 100,
  },
  strength: {
    ...indoorStill,
    key: 'strength',
    activityType: ActivityType.STRENGTH_TRAINING,
    label: 'Strength',
    intensityRange: [0.4, 0.55],
    durationMinutes: [35, 60],
  },
  yoga: {
    ...indoorStill,
    key: 'yoga',
    activityType: ActivityType.YOGA,
    label: 'Yoga',
    intensityRange: [0.18, 0.28],
    durationMinutes: [30, 60],
  },
};

export const POOL_LENGTH_METERS = 25;
