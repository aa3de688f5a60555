// Withings workout `category` codes (workout_object.category in the spec) -> ActivityType, and
// the device model codes a workout's `model` field uses.
import { ActivityType } from '../../../model/activity-type.ts';

const T = ActivityType;

export const workoutCategories: Readonly<Record<number, ActivityType>> = {
  1: T.WALKING,
  2: T.RUNNING,
  3: T.HIKING,
  4: T.SKATING,
  5: T.BIKING, // BMX
  6: T.BIKING,
  7: T.SWIMMING,
  8: T.SURFING,
  9: T.KITESURFING,
  10: T.WINDSURFING,
  11: T.SURFING, // bodyboard
  12: T.TENNIS,
  13: T.TABLE_TENNIS,
  14: T.SQUASH,
  15: T.BADMINTON,
  16: T.WEIGHTLIFTING,
  17: T.CARDIO_TRAINING, // "Fitness"
  18: T.ELLIPTICAL,
  19: T.PILATES,
  20: T.BASKETBALL,
  21: T.ENGLISH_FOOTBALL,
  22: T.AMERICAN_FOOTBALL,
  23: T.RUGBY,
  24: T.VOLLEYBALL,
  25: T.WATERPOLO,
  26: T.HORSEBACK_RIDING,
  27: T.GOLF,
  28: T.YOGA,
  29: T.DANCING,
  30: T.BOXING,
  31: T.FENCING,
  32: T.MARTIAL_ARTS, // wrestling
  33: T.MARTIAL_ARTS,
  34: T.SKIING,
  35: T.SNOWBOARDING,
  36: T.OTHER,
  128: T.STILL, // "No activity"
  187: T.ROWING,
  188: T.ZUMBA,
  191: T.BASEBALL,
  192: T.HANDBALL,
  193: T.HOCKEY,
  194: T.HOCKEY,
  195: T.ROCK_CLIMBING,
  196: T.ICE_SKATING,
  272: T.MULTISPORT,
  306: T.WALKING_TREADMILL,
  307: T.INDOOR_RUNNING,
  308: T.STATIONARY_BIKING,
  455: T.STAND_UP_PADDLEBOARDING,
  456: T.PADEL_TENNIS,
  490: T.VOLLEYBALL_BEACH,
  491: T.STAIR_CLIMBING_MACHINE,
  492: T.SKATEBOARDING,
  494: T.KAYAKING,
  495: T.CANOEING,
  496: T.SAILING,
  497: T.FISHING,
  498: T.TRAIL_RUNNING,
  499: T.SNOWSHOEING,
  501: T.ARCHERY,
  502: T.SCUBA_DIVING,
  503: T.BASEBALL,
  504: T.BIATHLON,
  507: T.PARAGLIDING,
  508: T.FRISBEE,
  509: T.SKY_DIVING,
  513: T.FRISBEE, // ultimate
  515: T.WHEELCHAIR,
  516: T.WHEELCHAIR,
  517: T.RUNNING, // athletics
  518: T.BIKING, // track cycling
  519: T.MULTISPORT, // pentathlon
  521: T.TRIATHLON,
  522: T.DIVING,
  523: T.MOUNTAIN_BIKING,
  524: T.GRAVEL_CYCLING,
  525: T.E_BIKING,
  526: T.E_MOUNTAIN_BIKING,
  527: T.HANDBIKING,
  528: T.BIKING, // velomobile
  529: T.BACK_COUNTRY_SKIING,
  530: T.CROSS_COUNTRY_SKIING,
  531: T.ROLLER_SKIING,
  532: T.RACQUETBALL,
  534: T.DANCING, // hip hop
  535: T.KICKBOXING, // muay thai
  536: T.MARTIAL_ARTS,
  537: T.MARTIAL_ARTS,
  538: T.GYMNASTICS, // trampoline
  539: T.PHYSICAL_THERAPY, // standing frame
  540: T.STRENGTH_TRAINING,
  541: T.CARDIO_TRAINING,
  542: T.WALKING,
  543: T.WALKING,
  544: T.DANCING, // breaking
  545: T.HOUSEWORK,
  546: T.CROSSFIT,
  547: T.SPINNING,
  548: T.CRICKET,
  549: T.DANCING,
  550: T.HIIT,
  551: T.MEDITATION,
  552: T.STRETCHING,
  553: T.GARDENING,
  554: T.HOUSEWORK,
  557: T.LACROSSE,
  558: T.WALKING,
  559: T.WALKING,
  560: T.GUIDED_BREATHING,
  562: T.WALKING_STROLLER,
  563: T.WALKING,
  566: T.NORDIC_WALKING,
  567: T.MARTIAL_ARTS,
  568: T.HOUSEWORK,
};

/** Categories with no counterpart (gaming, parkour, paintball, bowling, …) are 108 OTHER. */
export function activityTypeOfCategory(category: number): ActivityType {
  return workoutCategories[category] ?? T.OTHER;
}

/** Workout `model` codes (the spec's list) -> device names. */
export const workoutModels: Readonly<Record<number, string>> = {
  51: 'Pulse',
  52: 'Activite',
  53: 'Activite (Pop, Steel)',
  54: 'Withings Go',
  55: 'Activite Steel HR',
  58: 'Pulse HR',
  59: 'Activite Steel HR Sport Edition',
  90: 'Move',
  91: 'Move ECG',
  92: 'Move ECG',
  93: 'ScanWatch',
  94: 'ScanWatch 2',
  95: 'ScanWatch Light',
  1051: 'iOS step tracker',
  1052: 'iOS step tracker',
  1053: 'Android step tracker',
  1054: 'Android step tracker',
  1055: 'GoogleFit tracker',
  1056: 'Samsung Health tracker',
  1057: 'HealthKit step iPhone tracker',
  1058: 'HealthKit step Apple Watch tracker',
  1059: 'HealthKit other step tracker',
  1060: 'Google Health Connect',
  1062: 'Huawei tracker',
};
