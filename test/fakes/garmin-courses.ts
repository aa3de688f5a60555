import type { FakeReply, FakeRequest, Route } from './fake-server.ts';

/**
 * Garmin's Courses API in the fake (Garmin Connect Developer Program, "Courses API" 1.0.1; the
 * reference is partner-gated, so the rules below follow the public programme page
 * https://developer.garmin.com/gc-developer-program/courses-api/ ("import courses … to Garmin
 * Connect", permission COURSE_IMPORT) and the vendor's provider notes for Garmin routes
 * (tryterra/agent-skills skills/terra-routes/references/provider-details.md: elevation on all
 * points or none, the 10 Garmin course-point types, PUT to replace a course)). A course needs a
 * user who granted COURSE_IMPORT, a name, a known activity type, WGS84 coordinates, at least two
 * geoPoints in range, and elevation on every point or on none.
 */
export type GarminCourse = Record<string, unknown> & { courseId: number };
type Auth = {
  account: { registered: boolean; permissions: Set<string>; courses: Map<number, GarminCourse> };
};

const ACTIVITY_TYPES = new Set([
  'RUNNING',
  'TRAIL_RUNNING',
  'HIKING',
  'ROAD_CYCLING',
  'MOUNTAIN_BIKING',
  'GRAVEL_CYCLING',
  'OTHER',
]);
const POINT_TYPES = new Set([
  'GENERIC',
  'SUMMIT',
  'VALLEY',
  'WATER',
  'FOOD',
  'DANGER',
  'FIRST_AID',
  'SPRINT',
  'SEGMENT_START',
  'SEGMENT_END',
]);

const bad = (message: string): FakeReply => ({ status: 400, body: { errorMessage: message } });
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const inRange = (point: Record<string, unknown>) =>
  isNumber(point.latitude) &&
  isNumber(point.longitude) &&
  Math.abs(point.latitude) <= 90 &&
  Math.abs(point.longitude) <= 180;

/** Garmin's checks of a course body; the reason it is refused, or null. */
export function courseProblem(body: unknown): string | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the body must be a course';
  const course = body as Record<string, unknown>;
  if (typeof course.courseName !== 'string' || course.courseName.trim() === '')
    return 'courseName is required';
  if (!ACTIVITY_TYPES.has(String(course.activityType)))
    return `unknown activityType ${String(course.activityType)}`;
  if (course.coordinateSystem !== 'WGS84') return 'coordinateSystem must be WGS84';
  if (!isNumber(course.distance) || course.distance < 0) return 'distance must be a number of metres';
  const points = course.geoPoints;
  if (!Array.isArray(points) || points.length < 2) return 'geoPoints needs at least two points';
  const withElevation = points.filter(
    (point: Record<string, unknown>) => point?.elevation !== undefined,
  ).length;
  if (withElevation !== 0 && withElevation !== points.length)
    return 'elevation must be given on every geoPoint or on none';
  for (const point of points as Record<string, unknown>[]) {
    if (!point || !inRange(point)) return 'every geoPoint needs latitude and longitude in range';
    if (point.elevation !== undefined && !isNumber(point.elevation)) return 'elevation must be a number';
  }
  if (course.coursePoints !== undefined) {
    if (!Array.isArray(course.coursePoints)) return 'coursePoints must be a list';
    for (const point of course.coursePoints as Record<string, unknown>[]) {
      if (!POINT_TYPES.has(String(point?.coursePointType)))
        return `unknown coursePointType ${String(point?.coursePointType)}`;
      if (!inRange(point)) return 'every coursePoint needs latitude and longitude in range';
    }
  }
  return null;
}

export function courseRoutes(
  authorized: (request: FakeRequest) => Auth | FakeReply,
  nextId: () => number,
): Route[] {
  const admit = (request: FakeRequest): Map<number, GarminCourse> | FakeReply => {
    const auth = authorized(request);
    if (!('account' in auth)) return auth;
    if (!auth.account.registered)
      return { status: 403, body: { errorMessage: 'User is not registered with this application' } };
    if (!auth.account.permissions.has('COURSE_IMPORT'))
      return { status: 403, body: { errorMessage: 'The user has not granted COURSE_IMPORT' } };
    return auth.account.courses;
  };
  const json = (request: FakeRequest): unknown => {
    try {
      return JSON.parse(request.body);
    } catch {
      return undefined;
    }
  };
  const base = '/training-api/courses/v1/course';
  return [
    {
      method: 'POST',
      path: base,
      handler(request) {
        const courses = admit(request);
        if (!(courses instanceof Map)) return courses;
        const body = json(request);
        const problem = courseProblem(body);
        if (problem) return bad(problem);
        const course = { ...(body as Record<string, unknown>), courseId: nextId() };
        courses.set(course.courseId, course);
        return { status: 200, body: course };
      },
    },
    {
      method: 'PUT',
      path: `${base}/:id`,
      handler(request) {
        const courses = admit(request);
        if (!(courses instanceof Map)) return courses;
        const id = Number(request.params.id);
        if (!courses.has(id)) return { status: 404, body: { errorMessage: 'Not Found' } };
        const body = json(request);
        const problem = courseProblem(body);
        if (problem) return bad(problem);
        const course = { ...(body as Record<string, unknown>), courseId: id };
        courses.set(id, course);
        return { status: 200, body: course };
      },
    },
    {
      method: 'DELETE',
      path: `${base}/:id`,
      handler(request) {
        const courses = admit(request);
        if (!(courses instanceof Map)) return courses;
        if (!courses.delete(Number(request.params.id)))
          return { status: 404, body: { errorMessage: 'Not Found' } };
        return { status: 204 };
      },
    },
  ];
}
