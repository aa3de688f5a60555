// Strava `sport_type` (and the legacy `type`, whose values are a subset) -> ActivityType.
// Values from Strava's SportType enum. Types with no unified code (Pickleball, Workout, ...)
// become 108 OTHER; anything Strava adds later is read by its parts first.
import { ActivityType } from '../../../model/activity-type.ts';
import { activityTypeByParts } from '../../../provider-kit/normalize/sport-names.ts';

const T = ActivityType;

export const stravaSportTypes: Readonly<Record<string, ActivityType>> = {
  AlpineSki: T.DOWNHILL_SKIING,
  BackcountrySki: T.BACK_COUNTRY_SKIING,
  Badminton: T.BADMINTON,
  Canoeing: T.CANOEING,
  Crossfit: T.CROSSFIT,
  EBikeRide: T.E_BIKING,
  Elliptical: T.ELLIPTICAL,
  EMountainBikeRide: T.E_MOUNTAIN_BIKING,
  Golf: T.GOLF,
  GravelRide: T.GRAVEL_CYCLING,
  Handcycle: T.HANDBIKING,
  HighIntensityIntervalTraining: T.HIIT,
  Hike: T.HIKING,
  IceSkate: T.ICE_SKATING,
  InlineSkate: T.INLINE_SKATING,
  Kayaking: T.KAYAKING,
  Kitesurf: T.KITESURFING,
  MountainBikeRide: T.MOUNTAIN_BIKING,
  NordicSki: T.CROSS_COUNTRY_SKIING,
  Pickleball: T.OTHER,
  Pilates: T.PILATES,
  Racquetball: T.RACQUETBALL,
  Ride: T.BIKING,
  RockClimbing: T.ROCK_CLIMBING,
  RollerSki: T.ROLLER_SKIING,
  Rowing: T.ROWING,
  Run: T.RUNNING,
  Sail: T.SAILING,
  Skateboard: T.SKATEBOARDING,
  Snowboard: T.SNOWBOARDING,
  Snowshoe: T.SNOWSHOEING,
  Soccer: T.ENGLISH_FOOTBALL,
  Squash: T.SQUASH,
  StairStepper: T.STAIR_CLIMBING_MACHINE,
  StandUpPaddling: T.STAND_UP_PADDLEBOARDING,
  Surfing: T.SURFING,
  Swim: T.SWIMMING,
  TableTennis: T.TABLE_TENNIS,
  Tennis: T.TENNIS,
  TrailRun: T.TRAIL_RUNNING,
  Velomobile: T.BIKING,
  VirtualRide: T.STATIONARY_BIKING,
  VirtualRow: T.ROWING_MACHINE,
  VirtualRun: T.TREADMILL_RUNNING,
  Walk: T.WALKING,
  WeightTraining: T.STRENGTH_TRAINING,
  Wheelchair: T.WHEELCHAIR,
  Windsurf: T.WINDSURFING,
  Workout: T.OTHER,
  Yoga: T.YOGA,
};

/**
 * The ActivityType of an activity. `trainer` (indoor trainer / treadmill) refines a plain Ride or
 * Run, which Strava otherwise reports for indoor sessions recorded by a device.
 */
export function activityTypeOf(
  sportType: string | null | undefined,
  trainer: boolean | null | undefined,
): ActivityType {
  // A sport type newer than this table is read by its parts (`EMountainBikeRide`-like names).
  const code =
    (sportType ? (stravaSportTypes[sportType] ?? activityTypeByParts(sportType)) : undefined) ?? T.OTHER;
  if (trainer === true) {
    if (code === T.BIKING) return T.STATIONARY_BIKING;
    if (code === T.RUNNING) return T.TREADMILL_RUNNING;
  }
  return code;
}
