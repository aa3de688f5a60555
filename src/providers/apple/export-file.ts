// The Health app's export.xml: its `Record`, `Workout` and `ActivitySummary` elements (the same
// attributes as the SDK upload, without UUIDs) turned into the upload's JSON shape and read by the
// same readers; workout routes from the archive's GPX files.
import type { Readable } from 'node:stream';
import { readGpxPoints } from '../../provider-kit/mobile/gpx.ts';
import {
  type MobileHooks,
  type MobileSample,
  plausibleSamples,
  type XmlElement,
} from '../../provider-kit/mobile/samples.ts';
import { readAppleActivitySummary, readAppleRecord } from './records.ts';
import { readAppleWorkout } from './workouts.ts';

type Json = Record<string, unknown>;

/** The element's attributes as the upload's record, metadata entries folded in (the element is ours to change). */
function withMetadata(element: XmlElement): Json {
  const record: Json = element.attributes;
  if (element.children.length === 0) return record;
  const metadata: Record<string, string> = {};
  for (const child of element.children)
    if (child.name === 'MetadataEntry' && child.attributes.key)
      metadata[child.attributes.key] = child.attributes.value ?? '';
  record.metadata = metadata;
  return record;
}

function workoutFromElement(element: XmlElement): Json {
  const workout = withMetadata(element);
  workout.statistics = element.children
    .filter((child) => child.name === 'WorkoutStatistics')
    .map((child) => child.attributes);
  // Version 8 exports carry the route inline; newer ones point at a GPX file of the archive,
  // whose points the export reader hands over as the FileReference's children (readRoute).
  workout.route = element.children
    .filter((child) => child.name === 'WorkoutRoute')
    .flatMap((route) =>
      route.children.flatMap((child) =>
        child.name === 'Location'
          ? [child.attributes]
          : child.name === 'FileReference'
            ? child.children.map((point) => point.attributes)
            : [],
      ),
    );
  return workout;
}

/** A route's GPX file (streamed, bounded: provider-kit/mobile/gpx.ts) as inline `Location`s. */
async function readRoute(source: Readable): Promise<XmlElement[]> {
  const points = await readGpxPoints(source);
  return points.map((point) => ({ name: 'Location', attributes: point, children: [] }));
}

/**
 * An export element's samples, each checked by the plausibility check every source passes
 * (model/plausibility.ts). Against the machine's clock: an export is read wherever its reader
 * runs (a sandboxed child process), with no request clock, and the window's year ahead makes
 * minutes of difference irrelevant.
 */
function fromExportElement(element: XmlElement): MobileSample[] {
  return plausibleSamples(samplesOfElement(element), Date.now());
}

function samplesOfElement(element: XmlElement): MobileSample[] {
  switch (element.name) {
    case 'Record':
      return readAppleRecord(withMetadata(element));
    case 'Workout':
      return readAppleWorkout(workoutFromElement(element));
    case 'ActivitySummary':
      return readAppleActivitySummary(element.attributes);
    default:
      return [];
  }
}

export const appleExportFile: NonNullable<MobileHooks['exportFile']> = {
  format: 'apple-health',
  entry: /(^|\/)export\.xml$/,
  // Correlation children are repeated as top-level Records, so Correlations are not read.
  elements: ['Record', 'Workout', 'ActivitySummary'],
  // One route file per workout in a real export; a few references to one file are tolerated.
  references: {
    element: 'FileReference',
    attribute: 'path',
    maxBytes: 32 * 1024 * 1024,
    maxReferences: 4,
    read: readRoute,
  },
  fromElement: fromExportElement,
};
