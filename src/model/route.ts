// A GPS route (the vendor's Routes API, `POST /routes`): a named sequence of waypoints a developer
// stores once and pushes to users' devices. Limits, sports and course-point types follow the
// vendor's core concepts page and its terra-routes skill (docs/wire-contract.md#routes); where
// those sources leave something open, docs/vendor-spec-deviations.md says what was chosen.
import Type, { type Static } from 'typebox';
import { stringSchema } from './schema-helpers.ts';

/** The 8 documented sports (lower-case). */
export const routeSports = [
  'running',
  'trail_running',
  'hiking',
  'cycling',
  'road_biking',
  'mountain_biking',
  'gravel_cycling',
  'other',
] as const;

/** The 15 course-point types of the vendor's schema (the first 10 are Garmin's documented POIs). */
export const coursePointTypes = [
  'generic',
  'summit',
  'valley',
  'water',
  'food',
  'danger',
  'first_aid',
  'sprint',
  'segment_start',
  'segment_end',
  'left',
  'right',
  'straight',
  'left_fork',
  'right_fork',
] as const;

export const MAX_WAYPOINTS = 10_000;

export const RouteSport = stringSchema(routeSports, 'Sport of the route, lower-case');

export const CoursePoint = Type.Object(
  {
    type: stringSchema(coursePointTypes, 'Kind of point of interest'),
    name: Type.Optional(Type.String({ maxLength: 255, description: 'Label shown on the device' })),
  },
  { description: 'A point of interest at this waypoint (Garmin shows them)' },
);

export const Waypoint = Type.Object({
  latitude: Type.Number({ minimum: -90, maximum: 90, description: 'Decimal degrees' }),
  longitude: Type.Number({ minimum: -180, maximum: 180, description: 'Decimal degrees' }),
  elevation_meters: Type.Optional(
    Type.Number({ minimum: -500, maximum: 9000, description: 'Metres above sea level' }),
  ),
  course_point: Type.Optional(CoursePoint),
});

const routeFields = {
  name: Type.String({ minLength: 1, maxLength: 255, description: 'Route name shown on the device' }),
  sport: RouteSport,
  waypoints: Type.Array(Waypoint, {
    minItems: 2,
    maxItems: MAX_WAYPOINTS,
    description: '2 to 10,000 GPS points, in order',
  }),
  description: Type.Optional(
    Type.String({ maxLength: 2000, description: 'Up to 2,000 characters; Garmin shows it' }),
  ),
  elevation_gain_meters: Type.Optional(Type.Number({ minimum: 0, description: 'Total gain in metres' })),
  elevation_loss_meters: Type.Optional(Type.Number({ minimum: 0, description: 'Total loss in metres' })),
  speed_meters_per_second: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, description: 'Average speed of the course (Garmin only)' }),
  ),
};

/** The body of `POST /routes`: a route template. */
const EXAMPLE = {
  name: 'Morning Run Loop',
  sport: 'running',
  waypoints: [
    {
      latitude: 51.5074,
      longitude: -0.1278,
      elevation_meters: 12,
      course_point: { type: 'generic', name: 'Start' },
    },
    { latitude: 51.515, longitude: -0.12, elevation_meters: 20 },
  ],
};

export const RouteTemplate = Type.Object(routeFields, {
  description: 'A GPS route template',
  examples: [EXAMPLE],
});

/** The body of `PUT /routes/{id}`: every field optional, only those given change. */
export const RouteUpdate = Type.Partial(RouteTemplate, {
  description: 'Only the fields given change',
  examples: [{ name: 'Evening Run Loop' }],
});

export type RouteTemplate = Static<typeof RouteTemplate>;
export type RouteUpdate = Static<typeof RouteUpdate>;
export type RouteWaypoint = Static<typeof Waypoint>;
