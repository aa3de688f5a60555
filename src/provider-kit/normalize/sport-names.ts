// English sport names -> ActivityType codes, for providers that name a workout's sport with a
// free string (a field such as `activity` or `sport_name`). Names are compared after lower-casing and
// dropping everything but letters and digits, so `strengthTraining`, `Strength Training` and
// `strength_training` are one key. A provider adds or overrides names where its wording differs.
import { ActivityType } from '../../model/activity-type-codes.ts';

export function sportKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

const T = ActivityType;

export const commonSportNames: Readonly<Record<string, ActivityType>> = {
  activity: T.OTHER,
  other: T.OTHER,
  aerobics: T.AEROBICS,
  americanfootball: T.AMERICAN_FOOTBALL,
  archery: T.ARCHERY,
  australianfootball: T.AUSTRALIAN_FOOTBALL,
  badminton: T.BADMINTON,
  baseball: T.BASEBALL,
  basketball: T.BASKETBALL,
  beachvolleyball: T.VOLLEYBALL_BEACH,
  biking: T.BIKING,
  bicycle: T.BIKING,
  boxing: T.BOXING,
  breathing: T.GUIDED_BREATHING,
  breathwork: T.GUIDED_BREATHING,
  calisthenics: T.CALISTHENICS,
  canoeing: T.CANOEING,
  cardio: T.CARDIO_TRAINING,
  cardiotraining: T.CARDIO_TRAINING,
  circuittraining: T.CIRCUIT_TRAINING,
  climbing: T.ROCK_CLIMBING,
  bouldering: T.ROCK_CLIMBING,
  cricket: T.CRICKET,
  crosscountryskiing: T.CROSS_COUNTRY_SKIING,
  crossfit: T.CROSSFIT,
  curling: T.CURLING,
  cycling: T.BIKING,
  dance: T.DANCING,
  dancing: T.DANCING,
  diving: T.DIVING,
  downhillskiing: T.DOWNHILL_SKIING,
  alpineskiing: T.DOWNHILL_SKIING,
  backcountryskiing: T.BACK_COUNTRY_SKIING,
  duathlon: T.MULTISPORT,
  ebiking: T.E_BIKING,
  elliptical: T.ELLIPTICAL,
  fencing: T.FENCING,
  fieldhockey: T.HOCKEY,
  fishing: T.FISHING,
  gaelicfootball: T.GAELIC_FOOTBALL,
  gardening: T.GARDENING,
  golf: T.GOLF,
  gymnastics: T.GYMNASTICS,
  handball: T.HANDBALL,
  hiit: T.HIIT,
  highintensityintervaltraining: T.HIIT,
  hiking: T.HIKING,
  rucking: T.HIKING,
  hockey: T.HOCKEY,
  icehockey: T.HOCKEY,
  horsebackriding: T.HORSEBACK_RIDING,
  housework: T.HOUSEWORK,
  hurling: T.HURLING,
  iceskating: T.ICE_SKATING,
  indoorcycling: T.STATIONARY_BIKING,
  inlineskating: T.INLINE_SKATING,
  intervaltraining: T.INTERVAL_TRAINING,
  jogging: T.JOGGING,
  jumpingrope: T.JUMPING_ROPE,
  jumprope: T.JUMPING_ROPE,
  kayaking: T.KAYAKING,
  kettlebell: T.KETTLEBELL_TRAINING,
  kettlebelltraining: T.KETTLEBELL_TRAINING,
  kickboxing: T.KICKBOXING,
  kitesurfing: T.KITESURFING,
  lacrosse: T.LACROSSE,
  martialarts: T.MARTIAL_ARTS,
  jiujitsu: T.MARTIAL_ARTS,
  meditation: T.MEDITATION,
  mixedmartialarts: T.MIXED_MARTIAL_ARTS,
  mobility: T.STRETCHING,
  motorracing: T.MOTOR_RACING,
  mountainbiking: T.MOUNTAIN_BIKING,
  mountaineering: T.MOUNTAINEERING,
  nordicwalking: T.NORDIC_WALKING,
  orienteering: T.ORIENTEERING,
  paddleboarding: T.STAND_UP_PADDLEBOARDING,
  standuppaddleboarding: T.STAND_UP_PADDLEBOARDING,
  paddletennis: T.PADEL_TENNIS,
  padel: T.PADEL_TENNIS,
  paddling: T.PADDLING,
  physicaltherapy: T.PHYSICAL_THERAPY,
  pilates: T.PILATES,
  polo: T.POLO,
  powerlifting: T.WEIGHTLIFTING,
  racquetball: T.RACQUETBALL,
  roadbiking: T.ROAD_BIKING,
  rockclimbing: T.ROCK_CLIMBING,
  rowing: T.ROWING,
  indoorrowing: T.ROWING_MACHINE,
  rowingmachine: T.ROWING_MACHINE,
  rugby: T.RUGBY,
  run: T.RUNNING,
  running: T.RUNNING,
  sailing: T.SAILING,
  scubadiving: T.SCUBA_DIVING,
  skateboarding: T.SKATEBOARDING,
  skating: T.SKATING,
  skiing: T.SKIING,
  sledding: T.SLEDDING,
  snowboarding: T.SNOWBOARDING,
  snowshoeing: T.SNOWSHOEING,
  soccer: T.ENGLISH_FOOTBALL,
  softball: T.SOFTBALL,
  spin: T.SPINNING,
  spinning: T.SPINNING,
  squash: T.SQUASH,
  stairclimbing: T.STAIR_CLIMBING,
  stairexercise: T.STAIR_CLIMBING,
  stairmaster: T.STAIR_CLIMBING_MACHINE,
  stationarybike: T.STATIONARY_BIKING,
  strengthtraining: T.STRENGTH_TRAINING,
  stretching: T.STRETCHING,
  surfing: T.SURFING,
  swimming: T.SWIMMING,
  openwaterswimming: T.SWIMMING_OPEN_WATER,
  poolswimming: T.SWIMMING_SWIMMING_POOL,
  tabletennis: T.TABLE_TENNIS,
  tennis: T.TENNIS,
  trailrunning: T.TRAIL_RUNNING,
  trailrun: T.TRAIL_RUNNING,
  treadmill: T.TREADMILL,
  treadmillrunning: T.TREADMILL_RUNNING,
  triathlon: T.TRIATHLON,
  volleyball: T.VOLLEYBALL,
  wakeboarding: T.WAKEBOARDING,
  walking: T.WALKING,
  walk: T.WALKING,
  waterpolo: T.WATERPOLO,
  waterskiing: T.WATER_SKIING,
  weightlifting: T.WEIGHTLIFTING,
  weighttraining: T.STRENGTH_TRAINING,
  wheelchair: T.WHEELCHAIR,
  wheelchairpushing: T.WHEELCHAIR,
  windsurfing: T.WINDSURFING,
  yoga: T.YOGA,
  hotyoga: T.YOGA,
  zumba: T.ZUMBA,
};

/** A name's words, lower case: split at separators and at camelCase humps (`weightlifting_msk`). */
export function sportNameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((part) => part !== '');
}

/**
 * The ActivityType a name's parts name, for names no table knows: the longest run of
 * consecutive words that is a known sport wins (leftmost on a tie), so `weightlifting_msk` is
 * weightlifting and `indoor_rowing_custom` is indoor rowing. Words that only say "other" or
 * "activity" do not count. Null when no part is a sport.
 */
export function activityTypeByParts(
  name: string,
  providerNames: Readonly<Record<string, ActivityType>> = {},
): ActivityType | null {
  const parts = sportNameParts(name);
  for (let length = parts.length; length >= 1; length--) {
    for (let start = 0; start + length <= parts.length; start++) {
      const key = parts.slice(start, start + length).join('');
      const found = providerNames[key] ?? commonSportNames[key];
      if (found !== undefined && found !== T.OTHER) return found;
    }
  }
  return null;
}

/**
 * The ActivityType for a sport name: the provider's own names first, then the common ones, then
 * the name's parts; 108 OTHER only when nothing in it is known (the wire contract's rule for
 * unmapped types).
 */
export function activityTypeOfName(
  name: string | null | undefined,
  providerNames: Readonly<Record<string, ActivityType>> = {},
): ActivityType {
  if (!name) return T.OTHER;
  const key = sportKey(name);
  return providerNames[key] ?? commonSportNames[key] ?? activityTypeByParts(name, providerNames) ?? T.OTHER;
}
