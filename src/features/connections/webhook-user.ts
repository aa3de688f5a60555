// The `user` object carried by user-scoped webhook events (docs/wire-contract.md#the-user-object), and
// what the features building such events (connecting, data) share: the model version some of them
// carry and the small value conversions.
import { MODEL_VERSION } from '../../model/index.ts';
import { wireDateTime } from '../../model/time.ts';

/** Data-model version carried by data events and the events the contract marks with `version`. */
export const WEBHOOK_MODEL_VERSION = MODEL_VERSION;
export type WebhookModelVersion = typeof WEBHOOK_MODEL_VERSION;

export type JsonObject = { readonly [key: string]: unknown };

export interface WebhookUser {
  user_id: string;
  provider: string;
  last_webhook_update: string | null;
  scopes: string | null;
  reference_id: string | null;
  active: boolean;
  created_at: string | null;
}

/** What callers may pass for a user: a wider row is fine, only the wire keys are copied out. */
export interface WebhookUserInput {
  user_id: string;
  provider: string;
  last_webhook_update?: string | Date | null;
  scopes?: string | readonly string[] | null;
  reference_id?: string | null;
  active?: boolean;
  created_at?: string | Date | null;
}

export function commaList(value: string | readonly string[]): string {
  return typeof value === 'string' ? value : value.join(',');
}

/** Copies exactly the wire keys, so an internal column on a database row can never leak into a payload. */
export function toWebhookUser(user: WebhookUserInput): WebhookUser {
  return {
    user_id: user.user_id,
    provider: user.provider,
    last_webhook_update: user.last_webhook_update ? wireDateTime(user.last_webhook_update) : null,
    scopes: user.scopes ? commaList(user.scopes) || null : null,
    reference_id: user.reference_id ?? null,
    active: user.active ?? true,
    created_at: user.created_at ? wireDateTime(user.created_at) : null,
  };
}
