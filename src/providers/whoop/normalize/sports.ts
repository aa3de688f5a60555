// WHOOP sport -> ActivityType. `sport_name` (v2) is matched by name; the deprecated `sport_id`
// (removed after 2025-09-01) is a fallback for older records. Ids -1..32 are from WHOOP's
// developer docs table; higher ids are as several public WHOOP clients agree on them [C].
// Cannot map: WHOOP sports with no unified code (ice bath, sauna, operations, ...) -> 108 OTHER.
import { ActivityType } from '../../../model/activity-type.ts';
import { activityTypeOfName } from '../../../provider-kit/normalize/sport-names.ts';

const T = ActivityType;

/** WHOOP's wording where it differs from the common names (WHOOP is US-based: football is American). */
const whoopNames: Readonly<Record<string, ActivityType>> = {
  football: T.AMERICAN_FOOTBALL,
  functionalfitness: T.CROSSFIT,
  hikingrucking: T.HIKING,
  assaultbike: T.STATIONARY_BIKING,
  skiergometer: T.ERGOMETER,
  boxfitness: T.BOXING,
};

const sportNamesById: Readonly<Record<number, string>> = {
  [-1]: 'Activity',
  0: 'Running',
  1: 'Cycling',
  16: 'Baseball',
  17: 'Basketball',
  18: 'Rowing',
  19: 'Fencing',
  20: 'Field Hockey',
  21: 'Football',
  22: 'Golf',
  24: 'Ice Hockey',
  25: 'Lacrosse',
  27: 'Rugby',
  28: 'Sailing',
  29: 'Skiing',
  30: 'Soccer',
  31: 'Softball',
  32: 'Squash',
  33: 'Swimming',
  34: 'Tennis',
  35: 'Track & Field',
  36: 'Volleyball',
  37: 'Water Polo',
  38: 'Wrestling',
  39: 'Boxing',
  42: 'Dance',
  43: 'Pilates',
  44: 'Yoga',
  45: 'Weightlifting',
  47: 'Cross Country Skiing',
  48: 'Functional Fitness',
  49: 'Duathlon',
  51: 'Gymnastics',
  52: 'Hiking/Rucking',
  53: 'Horseback Riding',
  55: 'Kayaking',
  56: 'Martial Arts',
  57: 'Mountain Biking',
  59: 'Powerlifting',
  60: 'Rock Climbing',
  61: 'Paddleboarding',
  62: 'Triathlon',
  63: 'Walking',
  64: 'Surfing',
  65: 'Elliptical',
  66: 'Stairmaster',
  70: 'Meditation',
  71: 'Other',
  73: 'Diving',
  84: 'Jumping Rope',
  85: 'Australian Football',
  86: 'Skateboarding',
  91: 'Snowboarding',
  96: 'HIIT',
  97: 'Spin',
};

export function whoopSportName(
  sportName: string | null | undefined,
  sportId: number | null | undefined,
): string | null {
  if (sportName) return sportName;
  return typeof sportId === 'number' ? (sportNamesById[sportId] ?? null) : null;
}

export function whoopActivityType(
  sportName: string | null | undefined,
  sportId: number | null | undefined,
): ActivityType {
  return activityTypeOfName(whoopSportName(sportName, sportId), whoopNames);
}
