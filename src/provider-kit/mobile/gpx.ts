// Track points of a GPX 1.1 route (`<trkpt lat lon><ele/><time/></trkpt>`), read from a stream by
// a streaming XML parser with bounds: the file is untrusted (an export's workout-routes/*.gpx).
// The regular expression this replaces backtracked quadratically on an unclosed `<trkpt>` (a 2 MB
// route blocked the process for 348 s); the parser is linear, and every structure it may build
// is capped: points per route, nesting, tag and text lengths.
import type { Readable } from 'node:stream';
import { createXmlShapeGuard, XmlLimitError } from './xml-guard.ts';

export const GPX_LIMITS = {
  /** Points of one route: 1 Hz for 48 hours. */
  maxPoints: 172_800,
  /** gpx > trk > trkseg > trkpt > extensions > …: real files nest about 6 deep. */
  maxDepth: 16,
  maxTagChars: 4096,
  /** Text of one element (an `<ele>`, a `<time>`); text elsewhere is not kept. */
  maxTextChars: 4096,
} as const;

/** One point as the export's inline `<Location>` writes it (attribute text, read by the normalizer). */
export type GpxPoint = { date: string; latitude: string; longitude: string; altitude?: string };

/**
 * Reads every track point with a time and a position; none when the file is not well-formed.
 * Throws XmlLimitError past a limit: a hostile file fails its import, it is not skipped.
 */
export async function readGpxPoints(source: Readable): Promise<GpxPoint[]> {
  // The parser is loaded by the first route read, not by a start of the service (issue 42).
  const { SaxesParser } = await import('saxes');
  const parser = new SaxesParser({ xmlns: false, position: false });
  const guard = createXmlShapeGuard(GPX_LIMITS);
  const points: GpxPoint[] = [];
  let depth = 0;
  let point: { lat?: string; lon?: string; ele?: string; time?: string } | null = null;
  let field: 'ele' | 'time' | null = null;
  let text = '';
  let parseError: Error | null = null;
  parser.on('error', (error) => {
    parseError ??= error;
  });
  parser.on('opentag', (tag) => {
    if (++depth > GPX_LIMITS.maxDepth)
      throw new XmlLimitError(`the route nests deeper than ${GPX_LIMITS.maxDepth} levels`);
    if (tag.name === 'trkpt') {
      const attributes = tag.attributes as Record<string, string>;
      point = { lat: attributes.lat, lon: attributes.lon };
    } else if (point && (tag.name === 'ele' || tag.name === 'time')) {
      field = tag.name;
      text = '';
    }
  });
  parser.on('text', (chunk) => {
    if (field) text += chunk;
  });
  parser.on('closetag', (tag) => {
    depth--;
    if (field && tag.name === field && point) {
      point[field] = text.trim();
      field = null;
    } else if (tag.name === 'trkpt' && point) {
      if (point.lat && point.lon && point.time) {
        if (points.length >= GPX_LIMITS.maxPoints)
          throw new XmlLimitError(`the route has more than ${GPX_LIMITS.maxPoints} points`);
        points.push({
          date: point.time,
          latitude: point.lat,
          longitude: point.lon,
          ...(point.ele ? { altitude: point.ele } : {}),
        });
      }
      point = null;
    }
  });
  const decoder = new TextDecoder('utf-8');
  try {
    for await (const chunk of source) {
      const slice = decoder.decode(chunk as Buffer, { stream: true });
      guard(slice);
      parser.write(slice);
      // A damaged route is no route (a partial one would be a wrong one); the workout stays.
      if (parseError) return [];
    }
    const tail = decoder.decode();
    guard(tail);
    parser.write(tail).close();
    if (parseError) return [];
  } finally {
    source.destroy();
  }
  return points;
}
