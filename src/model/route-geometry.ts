// Lengths along a route's waypoints (great-circle, spherical Earth): providers that want a
// course's distance get it from here.
const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;

type Point = { latitude: number; longitude: number };

export function haversineMeters(a: Point, b: Point): number {
  const dLat = (b.latitude - a.latitude) * RAD;
  const dLng = (b.longitude - a.longitude) * RAD;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(a.latitude * RAD) * Math.cos(b.latitude * RAD) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Sum of the legs between consecutive waypoints. */
export function routeDistanceMeters(points: readonly Point[]): number {
  let total = 0;
  for (let i = 1; i < points.length; i++) total += haversineMeters(points[i - 1]!, points[i]!);
  return total;
}
