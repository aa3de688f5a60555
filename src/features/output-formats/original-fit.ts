// Where `fit` deliveries find the provider's original file: the files connectors keep
// (features/original-files, migration 0045), looked up by the activity event's connection
// (`user.user_id`) and activity (`metadata.summary_id`), and only for the event's own developer.
import type { Db } from '../../store/db.ts';
import { findOriginalFit } from '../original-files/repo.ts';
import type { EventForFormatting } from './fhir-bundle.ts';

/**
 * Where the provider's original FIT file of an activity is kept. Given the activity event's
 * payload, it answers the file's bytes, or null when none is kept for that activity.
 */
export type OriginalFitFiles = (event: EventForFormatting, payload: unknown) => Promise<Uint8Array | null>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type ActivityPayload = { user?: { user_id?: unknown }; data?: { metadata?: { summary_id?: unknown } }[] };

/** The kept original FIT files of `developerId`'s connections. */
export function keptOriginalFits(db: Db, developerId: string): OriginalFitFiles {
  return async (_event, payload) => {
    const { user, data } = payload as ActivityPayload;
    const connectionId = user?.user_id;
    const summaryId = data?.[0]?.metadata?.summary_id;
    if (typeof connectionId !== 'string' || !UUID.test(connectionId)) return null;
    if (typeof summaryId !== 'string' || summaryId === '') return null;
    return findOriginalFit(db, { developerId, connectionId, summaryId });
  };
}
