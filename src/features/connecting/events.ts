// The connection lifecycle's webhook events: auth success and its failure arm (auth_cancelled), the
// user notices (deauth, access_revoked, connection_error), user_reauth and permission_change.
// Property names and shapes follow the vendor's current published schema (docs/wire-contract.md#webhook-events,
// docs/vendor-spec-deviations.md), so receivers generated from it parse our payloads unchanged;
// nothing else assembles these payloads.
import type { WebhookEnvelope } from '../delivery/events.ts';
import {
  commaList,
  toWebhookUser,
  WEBHOOK_MODEL_VERSION,
  type WebhookModelVersion,
  type WebhookUser,
  type WebhookUserInput,
} from '../connections/webhook-user.ts';

export interface AuthSuccessEvent {
  type: 'auth';
  status: 'success';
  user: WebhookUser;
  reference_id: string | null;
  widget_session_id: string | null;
}

/**
 * The failure arm of the auth webhook: a flow that failed, was denied or was abandoned. It carries
 * no user (the pending user is deleted with the flow); `flow_id` is the user_id the developer got
 * from authenticateUser (or the widget's pending user), the one handle they hold for the attempt.
 * `provider`, `message` and `widget_session_id` are extras the schema allows.
 */
export interface AuthErrorEvent {
  type: 'auth_cancelled';
  status: 'error';
  flow_id: string;
  provider: string;
  message: string;
  reason: string;
  reference_id: string | null;
  widget_session_id: string | null;
}

export interface AuthContext {
  referenceId?: string | null;
  widgetSessionId?: string | null;
}

export function buildAuthSuccessEvent(user: WebhookUserInput, context: AuthContext = {}): AuthSuccessEvent {
  return {
    type: 'auth',
    status: 'success',
    user: toWebhookUser(user),
    reference_id: context.referenceId ?? user.reference_id ?? null,
    widget_session_id: context.widgetSessionId ?? null,
  };
}

export function buildAuthErrorEvent(
  user: WebhookUserInput,
  failure: AuthContext & { reason: string; message?: string },
): AuthErrorEvent {
  return {
    type: 'auth_cancelled',
    status: 'error',
    flow_id: user.user_id,
    provider: user.provider,
    message: failure.message ?? 'User failed to authenticate and has been deleted',
    reason: failure.reason,
    reference_id: failure.referenceId ?? user.reference_id ?? null,
    widget_session_id: failure.widgetSessionId ?? null,
  };
}

/** Events that are only `{type, status, message, user}`; the table fixes status and wording. */
const USER_NOTICES = {
  deauth: { status: 'success', message: 'User has deauthenticated' },
  access_revoked: { status: 'warning', message: 'User revoked access' },
  connection_error: { status: 'warning', message: 'User connection degraded' },
} as const;

export type UserNoticeType = keyof typeof USER_NOTICES;
export type UserNoticeEvent = {
  [T in UserNoticeType]: {
    type: T;
    status: (typeof USER_NOTICES)[T]['status'];
    message: string;
    user: WebhookUser;
  };
}[UserNoticeType];

/** After these the user receives no more data: their `user` says `active: false`, as the schema shows. */
const ENDS_DATA: ReadonlySet<UserNoticeType> = new Set(['deauth', 'access_revoked']);

export function buildUserNoticeEvent<T extends UserNoticeType>(
  type: T,
  user: WebhookUserInput,
): Extract<UserNoticeEvent, { type: T }> {
  const notice = USER_NOTICES[type];
  const wireUser = toWebhookUser(ENDS_DATA.has(type) ? { ...user, active: false } : user);
  const event = { type, status: notice.status, message: notice.message, user: wireUser };
  return event as Extract<UserNoticeEvent, { type: T }>;
}

export interface UserReauthEvent {
  type: 'user_reauth';
  status: 'warning';
  message: string;
  new_user: WebhookUser;
  old_user: WebhookUser;
  version: WebhookModelVersion;
}

/** The old user is deleted by the reconnection, so it is `active: false`. */
export function buildUserReauthEvent(newUser: WebhookUserInput, oldUser: WebhookUserInput): UserReauthEvent {
  return {
    type: 'user_reauth',
    status: 'warning',
    message: 'User has reauthenticated and old ID has been deleted',
    new_user: toWebhookUser(newUser),
    old_user: toWebhookUser({ ...oldUser, active: false }),
    version: WEBHOOK_MODEL_VERSION,
  };
}

export interface PermissionChangeEvent {
  type: 'permission_change';
  status: 'warning';
  message: string;
  version: WebhookModelVersion;
  scopes_added: string;
  scopes_removed: string;
  user: WebhookUser;
}

export function buildPermissionChangeEvent(
  user: WebhookUserInput,
  change: { added: string | readonly string[]; removed: string | readonly string[] },
): PermissionChangeEvent {
  return {
    type: 'permission_change',
    status: 'warning',
    message: 'User permissions have been modified',
    version: WEBHOOK_MODEL_VERSION,
    scopes_added: commaList(change.added),
    scopes_removed: commaList(change.removed),
    user: toWebhookUser(user),
  };
}

export type ConnectionEvent =
  AuthSuccessEvent | AuthErrorEvent | UserNoticeEvent | UserReauthEvent | PermissionChangeEvent;

/**
 * The envelope the webhook engine carries: about the event's user (the new one for user_reauth),
 * and never suppressible, since a developer must hear of a connection even once its user is gone.
 */
export function connectionEnvelope(event: ConnectionEvent): WebhookEnvelope {
  const userId =
    'new_user' in event ? event.new_user.user_id : 'flow_id' in event ? event.flow_id : event.user.user_id;
  return { type: event.type, payload: event, userId };
}
