// The seam between the delivery engine and where events go. A destination is a kind plus
// settings; the webhook is one kind (a signed HTTP POST, kinds/webhook.ts, whose URL and secrets
// have columns of their own), and every other kind is one small adapter here: it checks its
// settings, says what the attempt log shows as its target (never a password), and sends one
// event, classing a failure as worth retrying or not. The engine sends through all of them alike.
// The engine knows nothing else about a kind: outbox, attempt log, retry schedule, health, hold
// and replay are the same for all of them (docs/destinations.md).
import type { TSchema } from 'typebox';
import { invalidParameter } from '../../core/errors.ts';
import type { DestinationKind, KindSettings } from './kinds/kind.ts';
import { natsKind, NatsSettingsSchema } from './kinds/nats.ts';
import { postgresqlKind, PostgresqlSettingsSchema } from './kinds/postgresql.ts';
import { s3Kind, S3SettingsSchema } from './kinds/s3.ts';
import { webhookKind, WebhookSettingsSchema } from './kinds/webhook.ts';

export type { DestinationKind, KindConnection, KindEvent, KindResult, KindSettings } from './kinds/kind.ts';

const KINDS = [postgresqlKind, s3Kind, natsKind] as const;

/** The kinds the engine keeps clients of (all but the webhook), by name. */
export const destinationKinds: ReadonlyMap<string, DestinationKind> = new Map(
  KINDS.map((kind) => [kind.kind, kind as unknown as DestinationKind]),
);

/** Every kind's settings, the webhook first: what creating and changing a destination checks. */
const KIND_SETTINGS_CHECKS: ReadonlyMap<string, KindSettings> = new Map<string, KindSettings>([
  [webhookKind.kind, webhookKind as unknown as KindSettings],
  ...destinationKinds,
]);

/** Every kind a destination may have, the webhook first. */
export const KIND_NAMES: readonly string[] = [...KIND_SETTINGS_CHECKS.keys()];

/**
 * Each kind's settings schema, the one its adapter checks settings with first: the API document
 * shows the create body as one variant per kind from these, and packages/client's types follow.
 */
export const KIND_SETTINGS: ReadonlyMap<string, TSchema> = new Map<string, TSchema>([
  ['webhook', WebhookSettingsSchema],
  ['postgresql', PostgresqlSettingsSchema],
  ['s3', S3SettingsSchema],
  ['nats', NatsSettingsSchema],
]);

const unknownKind = () => invalidParameter('kind', `expected one of ${KIND_NAMES.join(', ')}`);

/** A kind's settings adapter (any kind, the webhook included); an unknown name is a 400 naming `kind`. */
export function settingsOfKind(name: string): KindSettings {
  const kind = KIND_SETTINGS_CHECKS.get(name);
  if (!kind) throw unknownKind();
  return kind;
}

/** A kind the engine connects to (every kind but the webhook). */
export function kindOf(name: string): DestinationKind {
  const kind = destinationKinds.get(name);
  if (!kind) throw unknownKind();
  return kind;
}
