// Polar sport names (`detailed_sport_info`, e.g. `ROAD_RUNNING`, and the coarse `sport`, e.g.
// `RUNNING`) -> ActivityType. Names go through the shared dictionary after Polar's own; keys are
// compared in the shared `sportKey` form (lower case, letters and digits only).
import { ActivityType } from '../../../model/activity-type.ts';
import {
  activityTypeByParts,
  commonSportNames,
  sportKey,
} from '../../../provider-kit/normalize/sport-names.ts';

const T = ActivityType;

/** Polar Flow sport identifiers the shared dictionary does not know, or knows differently. */
const polarSportNames: Readonly<Record<string, ActivityType>> = {
  aquatics: T.AEROBICS,
  agility: T.OTHER,
  balletdancing: T.DANCING,
  ballroomdancing: T.DANCING,
  beachtennis: T.TENNIS,
  biathlon: T.BIATHLON,
  bodyandmind: T.YOGA,
  bootcamp: T.CIRCUIT_TRAINING,
  core: T.STRENGTH_TRAINING,
  crosstrainer: T.ELLIPTICAL,
  crosscountryrunning: T.RUNNING,
  duathloncycling: T.BIKING,
  duathlonrunning: T.RUNNING,
  ebike: T.E_BIKING,
  esports: T.OTHER,
  finnishbaseball: T.BASEBALL,
  fitnessboxing: T.BOXING,
  fitnessdancing: T.DANCING,
  fitnessmartialarts: T.MARTIAL_ARTS,
  fitnessstep: T.AEROBICS,
  floorball: T.HOCKEY,
  freemultisport: T.MULTISPORT,
  frisbeegolf: T.FRISBEE,
  functionaltraining: T.CIRCUIT_TRAINING,
  futsal: T.ENGLISH_FOOTBALL,
  gravel: T.GRAVEL_CYCLING,
  groupexercise: T.AEROBICS,
  gymnastick: T.GYMNASTICS,
  jazzdancing: T.DANCING,
  judomartialarts: T.MARTIAL_ARTS,
  kickboxingmartialarts: T.KICKBOXING,
  latindancing: T.DANCING,
  lesmillsbarre: T.PILATES,
  lesmillsbodybalance: T.YOGA,
  lesmillsbodycombat: T.MARTIAL_ARTS,
  lesmillsbodyjam: T.DANCING,
  lesmillsbodypump: T.STRENGTH_TRAINING,
  lesmillscxworks: T.STRENGTH_TRAINING,
  lesmillsgritathletic: T.HIIT,
  lesmillsgritcardio: T.HIIT,
  lesmillsgritstrength: T.HIIT,
  lesmillsrpm: T.SPINNING,
  lesmillsshbam: T.DANCING,
  lesmillssprint: T.SPINNING,
  lesmillstrip: T.SPINNING,
  mobilitydynamic: T.STRETCHING,
  mobilitystatic: T.STRETCHING,
  moderndancing: T.DANCING,
  motorsportscarracing: T.MOTOR_RACING,
  motorsportsenduro: T.ENDURO,
  motorsportshardenduro: T.ENDURO,
  motorsportsmotocross: T.MOTORBIKING,
  motorsportsroadracing: T.MOTOR_RACING,
  motorsportssnocross: T.SNOWMOBILE,
  obstaclecourseracing: T.RUNNING,
  offroadduathlon: T.MULTISPORT,
  offroadduathloncycling: T.MOUNTAIN_BIKING,
  offroadduathlonrunning: T.TRAIL_RUNNING,
  offroadtriathlon: T.TRIATHLON,
  offroadtriathloncycling: T.MOUNTAIN_BIKING,
  offroadtriathlonrunning: T.TRAIL_RUNNING,
  offroadtriathlonswimming: T.SWIMMING_OPEN_WATER,
  orienteeringmtb: T.MOUNTAIN_BIKING,
  orienteeringski: T.CROSS_COUNTRY_SKIING,
  otherindoor: T.OTHER,
  otheroutdoor: T.OTHER,
  parasportshandcycling: T.HANDBIKING,
  parasportssledhockey: T.HOCKEY,
  parasportswaterskiing: T.WATER_SKIING,
  parasportswheelchair: T.WHEELCHAIR,
  parasportswheelchairbasketball: T.BASKETBALL,
  parasportswheelchairtennis: T.TENNIS,
  riding: T.HORSEBACK_RIDING,
  ringette: T.HOCKEY,
  roadrunning: T.RUNNING,
  rollerblading: T.INLINE_SKATING,
  rollerskiingclassic: T.ROLLER_SKIING,
  rollerskiingfreestyle: T.ROLLER_SKIING,
  showdancing: T.DANCING,
  skierg: T.ERGOMETER,
  snowshoetrekking: T.SNOWSHOEING,
  stairworkout: T.STAIR_CLIMBING,
  streetdancing: T.DANCING,
  sup: T.STAND_UP_PADDLEBOARDING,
  taekwondomartialarts: T.MARTIAL_ARTS,
  telemarkskiing: T.SKIING,
  trackandfieldrunning: T.RUNNING,
  triathloncycling: T.BIKING,
  triathlonrunning: T.RUNNING,
  triathlonswimming: T.SWIMMING_OPEN_WATER,
  trotting: T.HORSEBACK_RIDING,
  ultimate: T.FRISBEE,
  ultrarunningrunning: T.RUNNING,
  verticalsportsoutclimbing: T.ROCK_CLIMBING,
  verticalsportswallclimbing: T.ROCK_CLIMBING,
  waterexercise: T.OTHER,
  waterrunning: T.RUNNING,
  watersportscanoeing: T.CANOEING,
  watersportskayaking: T.KAYAKING,
  watersportskitesurfing: T.KITESURFING,
  watersportssailing: T.SAILING,
  watersportssurfing: T.SURFING,
  watersportswakeboarding: T.WAKEBOARDING,
  watersportswaterski: T.WATER_SKIING,
  watersportswindsurfing: T.WINDSURFING,
  xcskiingclassic: T.CROSS_COUNTRY_SKIING,
  xcskiingfreestyle: T.CROSS_COUNTRY_SKIING,
};

function known(name: string | null | undefined): ActivityType | null {
  if (!name) return null;
  const key = sportKey(name);
  const type = polarSportNames[key] ?? commonSportNames[key];
  if (type !== undefined) return type;
  // Les Mills classes not listed above are group fitness classes.
  return key.startsWith('lesmills') ? T.AEROBICS : null;
}

/**
 * The ActivityType of an exercise: the detailed Flow sport when Polar knows one (it is the more
 * precise), else the coarse sport, else 108 OTHER.
 */
export function polarActivityType(
  sport: string | null | undefined,
  detailed: string | null | undefined,
): ActivityType {
  const fromDetailed = known(detailed);
  if (fromDetailed !== null && fromDetailed !== T.OTHER) return fromDetailed;
  const fromSport = known(sport);
  if (fromSport !== null && fromSport !== T.OTHER) return fromSport;
  // Names no table lists are read by their parts (`FUNCTIONAL_TRAINING_X` -> functional …).
  return (
    (detailed ? activityTypeByParts(detailed, polarSportNames) : null) ??
    (sport ? activityTypeByParts(sport, polarSportNames) : null) ??
    fromSport ??
    fromDetailed ??
    T.OTHER
  );
}
