// The `merged` webhook event: a person's merged records of one type, sent when a change to one of
// their connections changed a merged day (`day` set), or as the answer to a merged read with
// `to_webhook=true` (`reference` set). It is about a person, not one connection, so it names the
// person and their connections instead of a `user`.
import { WEBHOOK_MODEL_VERSION, type WebhookModelVersion } from '../connections/webhook-user.ts';
import type { WebhookEnvelope } from '../delivery/events.ts';
import type { MergedType } from './engine/merge-records.ts';

export const MERGED_EVENT_TYPE = 'merged';

export type Person = { reference_id: string; connections: object[] };

export type MergedEvent = {
  type: typeof MERGED_EVENT_TYPE;
  data_type: MergedType;
  person: Person;
  /** The local day whose merge changed; null for an answer to a read. */
  day: string | null;
  data: readonly object[];
  version: WebhookModelVersion;
  reference?: string;
};

export function buildMergedEvent(input: {
  type: MergedType;
  person: Person;
  day: string | null;
  data: readonly object[];
  reference: string | null;
}): MergedEvent {
  return {
    type: MERGED_EVENT_TYPE,
    data_type: input.type,
    person: input.person,
    day: input.day,
    data: input.data,
    version: WEBHOOK_MODEL_VERSION,
    ...(input.reference ? { reference: input.reference } : {}),
  };
}

export function mergedEnvelope(event: MergedEvent): WebhookEnvelope {
  return { type: event.type, payload: event, userId: null, reference: event.reference ?? null };
}
