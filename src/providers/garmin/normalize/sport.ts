// Garmin `activityType` (upper snake case: RUNNING, LAP_SWIMMING, VIRTUAL_RIDE…) -> ActivityType.
// Garmin's own names first, then the shared English names; a name neither knows is mapped by
// its parts, longest run of parts first (`STREET_RUNNING` -> running, `WEIGHTLIFTING_MSK` ->
// weightlifting), and only then falls back to OTHER.
import { ActivityType } from '../../../model/activity-type.ts';
import { activityTypeOfName } from '../../../provider-kit/normalize/sport-names.ts';

const T = ActivityType;

const garminNames: Readonly<Record<string, ActivityType>> = {
  lapswimming: T.SWIMMING_SWIMMING_POOL,
  openwaterswimming: T.SWIMMING_OPEN_WATER,
  indoorrunning: T.INDOOR_RUNNING,
  treadmillrunning: T.TREADMILL_RUNNING,
  trailrunning: T.TRAIL_RUNNING,
  virtualrun: T.TREADMILL_RUNNING,
  virtualride: T.STATIONARY_BIKING,
  indoorcycling: T.STATIONARY_BIKING,
  gravelcycling: T.GRAVEL_CYCLING,
  roadbiking: T.ROAD_BIKING,
  mountainbiking: T.MOUNTAIN_BIKING,
  ebikefitness: T.E_BIKING,
  ebikemountain: T.E_MOUNTAIN_BIKING,
  cyclocross: T.BIKING,
  bmx: T.BIKING,
  multisport: T.MULTISPORT,
  indoorrowing: T.ROWING_MACHINE,
  floorclimbing: T.STAIR_CLIMBING,
  stairclimbing: T.STAIR_CLIMBING,
  resortskiingsnowboarding: T.DOWNHILL_SKIING,
  resortskiing: T.DOWNHILL_SKIING,
  skateskiing: T.CROSS_COUNTRY_SKIING,
  crosscountryskiingws: T.CROSS_COUNTRY_SKIING,
  backcountryskiingsnowboardingws: T.BACK_COUNTRY_SKIING,
  indoorcardio: T.CARDIO_TRAINING,
  fitnessequipment: T.OTHER,
  breathwork: T.GUIDED_BREATHING,
  walk: T.WALKING,
  casualwalking: T.WALKING,
  speedwalking: T.WALKING,
  swimtobikttransition: T.MULTISPORT,
  pickleball: T.PADEL_TENNIS,
};

export function garminActivityType(name: string | null | undefined): ActivityType {
  return activityTypeOfName(name, garminNames);
}
