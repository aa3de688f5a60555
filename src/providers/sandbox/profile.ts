// The simulated person behind a sandbox user: stable physiology and habits derived from the
// seed alone, so every day and every data type describe the same body.
//
// The sandbox athlete is modelled as a woman so that every data type, menstruation and hormone
// included, has data for every seed.
import { Random } from './random.ts';
import { round } from './series.ts';

export interface HomeLocation {
  city: string;
  state: string;
  country: string;
  latitude: number;
  longitude: number;
  elevationMeters: number;
}

export type WorkoutKindKey = 'run' | 'ride' | 'walk' | 'swim' | 'strength' | 'yoga';

export interface AthleteProfile {
  seed: string;
  firstName: string;
  lastName: string;
  birthDate: string;
  heightCm: number;
  baseWeightKg: number;
  bodyFatPercent: number;
  restingHr: number;
  maxHr: number;
  vo2max: number;
  ftpWatts: number;
  /** Easy running speed; other kinds scale from their own ranges. */
  runSpeed: number;
  strideMeters: number;
  /** Mifflin-St Jeor resting energy per day, kcal. */
  bmrKcalPerDay: number;
  baselineHrvMs: number;
  systolicBp: number;
  diastolicBp: number;
  fastingGlucose: number;
  meanCycleLengthDays: number;
  /** Relative preference for each workout kind. */
  sportWeights: readonly (readonly [WorkoutKindKey, number])[];
  home: HomeLocation;
  /** Bedtime tendency in minutes after 21:00 local. */
  bedtimeOffsetMinutes: number;
}

const FIRST_NAMES = [
  'Ada',
  'Maya',
  'Lena',
  'Sofia',
  'Nora',
  'Iris',
  'Clara',
  'Elena',
  'Hana',
  'Zoe',
  'Amara',
];
const LAST_NAMES = [
  'Rivers',
  'Okafor',
  'Lindqvist',
  'Moreau',
  'Tanaka',
  'Castillo',
  'Novak',
  'Fischer',
  'Kaur',
];

const HOMES: readonly HomeLocation[] = [
  {
    city: 'Boulder',
    state: 'CO',
    country: 'US',
    latitude: 40.015,
    longitude: -105.2705,
    elevationMeters: 1655,
  },
  {
    city: 'London',
    state: 'England',
    country: 'GB',
    latitude: 51.5072,
    longitude: -0.1276,
    elevationMeters: 11,
  },
  {
    city: 'Amsterdam',
    state: 'North Holland',
    country: 'NL',
    latitude: 52.3676,
    longitude: 4.9041,
    elevationMeters: 2,
  },
  {
    city: 'San Francisco',
    state: 'CA',
    country: 'US',
    latitude: 37.7749,
    longitude: -122.4194,
    elevationMeters: 16,
  },
  {
    city: 'Melbourne',
    state: 'VIC',
    country: 'AU',
    latitude: -37.8136,
    longitude: 144.9631,
    elevationMeters: 31,
  },
  {
    city: 'Lyon',
    state: 'Auvergne-Rhône-Alpes',
    country: 'FR',
    latitude: 45.764,
    longitude: 4.8357,
    elevationMeters: 173,
  },
];

/** Age used for the (constant) resting energy estimate. */
const REFERENCE_AGE_YEARS = 32;

const profiles = new Map<string, AthleteProfile>();

export function athleteProfile(seed: string): AthleteProfile {
  const cached = profiles.get(seed);
  if (cached) return cached;
  const profile = buildProfile(seed);
  // A tiny cache: profiles are pure functions of the seed, and a range asks for one repeatedly.
  if (profiles.size > 256) profiles.clear();
  profiles.set(seed, profile);
  return profile;
}

function buildProfile(seed: string): AthleteProfile {
  const random = new Random(seed, 'profile');
  const heightCm = round(random.between(158, 178), 1);
  const bmi = random.between(19.5, 24.5);
  const baseWeightKg = round((bmi * heightCm * heightCm) / 10_000, 1);
  const fitness = random.next(); // 0 = recreational, 1 = well trained
  const birthYear = random.int(1975, 2001);
  const birthDate = `${birthYear}-${pad(random.int(1, 12))}-${pad(random.int(1, 28))}`;
  return {
    seed,
    firstName: random.pick(FIRST_NAMES),
    lastName: random.pick(LAST_NAMES),
    birthDate,
    heightCm,
    baseWeightKg,
    bodyFatPercent: round(random.between(20, 30) - fitness * 4, 1),
    restingHr: Math.round(random.between(52, 64) - fitness * 6),
    maxHr: Math.round(random.between(182, 196)),
    vo2max: round(random.between(36, 44) + fitness * 10, 1),
    ftpWatts: Math.round(random.between(150, 190) + fitness * 60),
    runSpeed: round(random.between(2.6, 2.9) + fitness * 0.5, 2),
    strideMeters: round(heightCm * 0.00415, 2),
    bmrKcalPerDay: round(10 * baseWeightKg + 6.25 * heightCm - 5 * REFERENCE_AGE_YEARS - 161, 2),
    baselineHrvMs: round(random.between(38, 70), 1),
    systolicBp: Math.round(random.between(106, 124)),
    diastolicBp: Math.round(random.between(66, 80)),
    fastingGlucose: Math.round(random.between(80, 94)),
    meanCycleLengthDays: random.int(26, 31),
    sportWeights: [
      ['run', random.between(2, 5)],
      ['ride', random.between(0.5, 3)],
      ['walk', random.between(1, 2)],
      ['swim', random.between(0.3, 1.5)],
      ['strength', random.between(1, 2.5)],
      ['yoga', random.between(0.5, 1.5)],
    ],
    home: random.pick(HOMES),
    bedtimeOffsetMinutes: random.int(60, 120),
  };
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
