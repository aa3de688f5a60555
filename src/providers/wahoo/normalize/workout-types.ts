// Wahoo `workout_type_id` -> ActivityType. Ids from the Wahoo Cloud API reference's workout
// type table (developers.wahooligan.com/cloud, "Workout Types") [D/C]. Ids not listed here
// are 108 OTHER.
import { ActivityType } from '../../../model/activity-type.ts';

const T = ActivityType;

export const wahooWorkoutTypes: Readonly<Record<number, ActivityType>> = {
  0: T.BIKING,
  1: T.RUNNING,
  2: T.OTHER, // FE (fitness equipment, unspecified)
  3: T.RUNNING, // track
  4: T.TRAIL_RUNNING,
  5: T.TREADMILL_RUNNING,
  6: T.WALKING,
  7: T.WALKING_FITNESS,
  8: T.NORDIC_WALKING,
  9: T.HIKING,
  10: T.MOUNTAINEERING,
  11: T.BIKING, // cyclocross
  12: T.STATIONARY_BIKING,
  13: T.MOUNTAIN_BIKING,
  14: T.BIKING, // recumbent
  15: T.ROAD_BIKING,
  16: T.BIKING, // track
  17: T.MOTORBIKING,
  18: T.OTHER, // FE general
  19: T.TREADMILL,
  20: T.ELLIPTICAL,
  21: T.STATIONARY_BIKING,
  22: T.ROWING_MACHINE,
  23: T.STAIR_CLIMBING_MACHINE,
  25: T.SWIMMING_SWIMMING_POOL,
  26: T.SWIMMING_OPEN_WATER,
  27: T.SNOWBOARDING,
  28: T.SKIING,
  29: T.DOWNHILL_SKIING,
  30: T.CROSS_COUNTRY_SKIING,
  31: T.SKATING,
  32: T.ICE_SKATING,
  33: T.INLINE_SKATING,
  34: T.SKATEBOARDING, // long boarding
  35: T.SAILING,
  36: T.WINDSURFING,
  37: T.CANOEING,
  38: T.KAYAKING,
  39: T.ROWING,
  40: T.KITESURFING,
  41: T.STAND_UP_PADDLEBOARDING,
  42: T.STRENGTH_TRAINING, // workout
  43: T.CARDIO_TRAINING, // cardio class
  44: T.STAIR_CLIMBING_MACHINE,
  45: T.WHEELCHAIR,
  46: T.GOLF,
  47: T.OTHER,
  49: T.SPINNING, // indoor cycling class
  56: T.WALKING_TREADMILL,
  61: T.STATIONARY_BIKING, // indoor trainer
  62: T.MULTISPORT,
  63: T.OTHER, // transition
  64: T.E_BIKING,
  65: T.OTHER, // TICKR offline
  66: T.YOGA,
  67: T.RUNNING, // race
  68: T.STATIONARY_BIKING, // indoor virtual
  69: T.MEDITATION, // mental strength
  70: T.HANDBIKING,
  71: T.INDOOR_RUNNING, // indoor virtual run
  255: T.OTHER,
};

export function wahooActivityType(typeId: number | null | undefined): ActivityType {
  return typeof typeId === 'number' ? (wahooWorkoutTypes[typeId] ?? T.OTHER) : T.OTHER;
}
