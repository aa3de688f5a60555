// Garmin Courses API (Garmin Connect Developer Program, "Courses API": partner-gated; the shapes
// follow the programme page and public client code, MAPPING.md "Courses"): a route becomes a
// Garmin course (POST …/courses/v1/course with geoPoints), replaced in place on a re-push (PUT,
// falling back to POST when Garmin no longer has it) and deleted again. The user must have
// granted COURSE_IMPORT.
import type { DataSourceUser } from '../../provider-kit/data-source.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { RouteHooks } from '../../provider-kit/routes.ts';
import { coursePointTypes, type RouteTemplate } from '../../model/route.ts';
import { routeDistanceMeters } from '../../model/route-geometry.ts';

export const GARMIN_COURSES_API = 'https://apis.garmin.com/training-api/courses/v1';
/** The Garmin permission that lets a partner import courses into a user's account. */
export const COURSE_IMPORT = 'COURSE_IMPORT';

/** Garmin's course activity types, by the vendor's route sport (`cycling` is a road ride there). */
const ACTIVITY_TYPES: Record<RouteTemplate['sport'], string> = {
  running: 'RUNNING',
  trail_running: 'TRAIL_RUNNING',
  hiking: 'HIKING',
  cycling: 'ROAD_CYCLING',
  road_biking: 'ROAD_CYCLING',
  mountain_biking: 'MOUNTAIN_BIKING',
  gravel_cycling: 'GRAVEL_CYCLING',
  other: 'OTHER',
};

/**
 * The course-point types Garmin documents: the vendor's first 10 (model/route.ts); its 5 turn
 * types have no Garmin form.
 */
const GARMIN_POINT_TYPES = new Set<string>(coursePointTypes.slice(0, 10));

type Json = Record<string, unknown>;

/** The Garmin course body of a route. */
export function toGarminCourse(route: RouteTemplate): Json {
  // Garmin takes elevation on every point or on none: a mixed route sends none (the vendor's rule).
  const withElevation = route.waypoints.every((point) => point.elevation_meters !== undefined);
  const geoPoints = route.waypoints.map((point) => ({
    latitude: point.latitude,
    longitude: point.longitude,
    ...(withElevation ? { elevation: point.elevation_meters } : {}),
  }));
  const coursePoints = route.waypoints.flatMap((point) =>
    point.course_point && GARMIN_POINT_TYPES.has(point.course_point.type)
      ? [
          {
            name: point.course_point.name ?? point.course_point.type,
            coursePointType: point.course_point.type.toUpperCase(),
            latitude: point.latitude,
            longitude: point.longitude,
          },
        ]
      : [],
  );
  return {
    courseName: route.name,
    ...(route.description ? { description: route.description } : {}),
    activityType: ACTIVITY_TYPES[route.sport],
    coordinateSystem: 'WGS84',
    distance: Math.round(routeDistanceMeters(route.waypoints)),
    ...(route.elevation_gain_meters !== undefined ? { elevationGain: route.elevation_gain_meters } : {}),
    ...(route.elevation_loss_meters !== undefined ? { elevationLoss: route.elevation_loss_meters } : {}),
    ...(route.speed_meters_per_second !== undefined
      ? { speedMeterPerSecond: route.speed_meters_per_second }
      : {}),
    geoPoints,
    ...(coursePoints.length > 0 ? { coursePoints } : {}),
  };
}

/** Why this user's routes cannot go to Garmin (COURSE_IMPORT not granted); null when they can. */
export function garminCourseRefusal(user: DataSourceUser): string | null {
  if (user.scopes === null) return null; // not known yet: Garmin answers 403/412 if it is missing
  return user.scopes.split(/[\s,]+/).includes(COURSE_IMPORT)
    ? null
    : `the user has not granted Garmin's ${COURSE_IMPORT} permission (Courses API)`;
}

const courseIdOf = (answer: unknown): string => {
  const id = (answer as { courseId?: unknown } | null)?.courseId;
  if (typeof id !== 'number' && typeof id !== 'string')
    throw new ProviderDataError('unavailable', 'Garmin created a course without a courseId');
  return String(id);
};

export const garminRoutes: RouteHooks = {
  apiName: 'Courses API',
  refusal: garminCourseRefusal,

  async push({ http, route, providerRouteId }) {
    if (!http) throw new ProviderDataError('unavailable', 'no provider HTTP client in this context');
    const json = toGarminCourse(route);
    if (providerRouteId && /^\d+$/.test(providerRouteId)) {
      const replaced = await http.json({
        method: 'PUT',
        url: `${GARMIN_COURSES_API}/course/${providerRouteId}`,
        json,
        absentOn: [404],
      });
      if (replaced !== null) return providerRouteId;
    }
    return courseIdOf(await http.json({ method: 'POST', url: `${GARMIN_COURSES_API}/course`, json }));
  },

  async delete({ http, providerRouteId }) {
    if (!http) throw new ProviderDataError('unavailable', 'no provider HTTP client in this context');
    if (!/^\d+$/.test(providerRouteId)) return;
    await http.json({
      method: 'DELETE',
      url: `${GARMIN_COURSES_API}/course/${providerRouteId}`,
      absentOn: [404],
    });
  },
};
