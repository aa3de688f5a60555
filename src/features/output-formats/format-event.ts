// The seam between the delivery engine and the developer's output format: one event's stored
// JSON body in, the bytes to POST (and their media type) out. The engine signs what this returns,
// so the signature covers the body the receiver gets, in whichever format.
//
//   json  the stored body as it is (what every developer had before output formats).
//   fhir  a FHIR R4 Bundle (fhir-bundle.ts) as application/fhir+json; an event type without a
//         FHIR form goes as its JSON payload with `tributary-output-format: json` and a reason.
//   fit   the provider's original FIT file (application/vnd.ant.fit) for an activity event of one
//         activity whose original file a connector kept (features/original-files, read through
//         original-fit.ts); anything else goes as JSON, with the reason (docs/output-formats.md).
import type { Clock } from '../../core/clock.ts';
import type { Db } from '../../store/db.ts';
import { type EventForFormatting, toFhirBundle } from './fhir-bundle.ts';
import {
  DEFAULT_OUTPUT_FORMAT,
  FALLBACK_HEADER,
  FORMAT_HEADER,
  MEDIA_TYPES,
  type OutputFormat,
} from './formats.ts';
import { keptOriginalFits, type OriginalFitFiles } from './original-fit.ts';

export type { OriginalFitFiles } from './original-fit.ts';
import { findOutputFormat } from './repo.ts';

export type { EventForFormatting } from './fhir-bundle.ts';

export type FormattedDelivery = {
  body: string | Uint8Array;
  contentType: string;
  /** Headers to send along (the content type among them), beside the engine's own; not to be changed. */
  headers: Readonly<Record<string, string>>;
};

/** No file is ever found: every `fit` delivery falls back to JSON, saying so (tools and tests). */
export const noOriginalFitFiles: OriginalFitFiles = async () => null;

/** The headers of a body sent as the stored JSON (shared: nobody changes them, webhook.ts copies them). */
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': MEDIA_TYPES.json,
  [FORMAT_HEADER]: 'json',
});

function asJson(event: { body: string }, fallback: string | null): FormattedDelivery {
  const headers = fallback ? { ...JSON_HEADERS, [FALLBACK_HEADER]: fallback } : JSON_HEADERS;
  return { body: event.body, contentType: MEDIA_TYPES.json, headers };
}

function singleActivity(event: EventForFormatting): unknown {
  if (event.type !== 'activity') return null;
  try {
    const payload = JSON.parse(event.body) as { data?: unknown };
    return Array.isArray(payload.data) && payload.data.length === 1 ? payload : null;
  } catch {
    return null;
  }
}

/** The event in `format` (pure but for reading a kept FIT file). */
export async function formatEvent(
  format: OutputFormat,
  event: EventForFormatting,
  originalFit: OriginalFitFiles = noOriginalFitFiles,
): Promise<FormattedDelivery> {
  if (format === 'fhir') {
    const bundle = toFhirBundle(event);
    if (!bundle) return asJson(event, 'no-fhir-form');
    return {
      body: JSON.stringify(bundle),
      contentType: MEDIA_TYPES.fhir,
      headers: { 'content-type': MEDIA_TYPES.fhir, [FORMAT_HEADER]: 'fhir' },
    };
  }
  if (format === 'fit') {
    if (event.type !== 'activity') return asJson(event, 'no-fit-form');
    const payload = singleActivity(event);
    if (!payload) return asJson(event, 'not-one-activity');
    const file = await originalFit(event, payload);
    if (!file) return asJson(event, 'no-original-fit-file');
    return {
      body: file,
      contentType: MEDIA_TYPES.fit,
      headers: { 'content-type': MEDIA_TYPES.fit, [FORMAT_HEADER]: 'fit' },
    };
  }
  return asJson(event, null);
}

/** How long a developer's format is remembered by the formatter (a change applies after it). */
export const FORMAT_FRESH_MS = 1_000;
/** Developers remembered at once; past it the memory starts over (bounded, never evicts wrongly). */
const REMEMBERED_DEVELOPERS = 10_000;

export type EventFormatterDeps = {
  db: Db;
  clock: Clock;
  /** Where a developer's kept FIT files are found; by default the store's (original-fit.ts). */
  originalFit?: (developerId: string) => OriginalFitFiles;
};

/** The engine's view of an event (webhooks/repo.ts `DeliverableEvent` has these columns). */
export type DeliveryEventRow = {
  id: string;
  developer_id: string;
  type: string;
  created_at: Date;
  body: string;
};

/**
 * The one call the delivery engine makes per webhook attempt: the developer's format (read at
 * most once a second per developer and process, so a busy engine does not read it per event)
 * applied to the event.
 */
export function createEventFormatter(deps: EventFormatterDeps) {
  const remembered = new Map<string, { format: OutputFormat; at: number }>();
  /**
   * Reads under way, by developer: the attempts that find the format stale while it is being read
   * share that read. (Each made its own before: with a hundred attempts in flight, every expiry
   * sent a query per attempt until the first answer came, 657 reads for 5,000 deliveries in the
   * bench at load 15, more than every other delivery statement together.)
   */
  const reading = new Map<string, Promise<OutputFormat>>();
  async function formatOf(developerId: string): Promise<OutputFormat> {
    const now = deps.clock.now().getTime();
    const known = remembered.get(developerId);
    if (known && now - known.at < FORMAT_FRESH_MS) return known.format;
    let read = reading.get(developerId);
    if (!read) {
      read = findOutputFormat(deps.db, developerId).then(
        (format) => {
          reading.delete(developerId);
          if (remembered.size >= REMEMBERED_DEVELOPERS) remembered.clear();
          remembered.set(developerId, { format, at: now });
          return format;
        },
        (error: unknown) => {
          reading.delete(developerId);
          throw error;
        },
      );
      reading.set(developerId, read);
    }
    return read;
  }
  async function formatAfterReading(event: DeliveryEventRow): Promise<FormattedDelivery> {
    const format = await formatOf(event.developer_id);
    if (format === DEFAULT_OUTPUT_FORMAT) return asJson(event, null);
    const originals = (deps.originalFit ?? ((id) => keptOriginalFits(deps.db, id)))(event.developer_id);
    return formatEvent(format, toFormatting(event), originals);
  }
  return {
    formatOf,
    /**
     * `formatEventForDelivery` for the engine: takes its event row as it is. Answered at once,
     * without a promise, for a developer remembered as taking the stored JSON (the common case:
     * one object per attempt, where two async steps made three).
     */
    format(event: DeliveryEventRow): FormattedDelivery | Promise<FormattedDelivery> {
      const known = remembered.get(event.developer_id);
      if (known?.format === DEFAULT_OUTPUT_FORMAT && deps.clock.now().getTime() - known.at < FORMAT_FRESH_MS)
        return asJson(event, null);
      return formatAfterReading(event);
    },
  };
}

export type EventFormatter = ReturnType<typeof createEventFormatter>;

const toFormatting = (event: DeliveryEventRow): EventForFormatting => ({
  id: event.id,
  type: event.type,
  createdAt: event.created_at,
  body: event.body,
});

/** One event for one developer, reading the format from the store (no memory): tools and tests. */
export async function formatEventForDelivery(
  deps: { db: Db; originalFit?: OriginalFitFiles },
  developerId: string,
  event: EventForFormatting,
): Promise<FormattedDelivery> {
  const originals = deps.originalFit ?? keptOriginalFits(deps.db, developerId);
  return formatEvent(await findOutputFormat(deps.db, developerId), event, originals);
}
