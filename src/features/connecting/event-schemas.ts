// JSON Schemas of the connection lifecycle's webhook events, as events.ts builds them, for the
// OpenAPI document's `webhooks` section. They describe the payloads; they build none.
import Type, { type TSchema } from 'typebox';
import {
  exampleWebhookUser as user,
  ModelVersionSchema,
  WebhookUserSchema,
} from '../connections/webhook-user-schema.ts';
import type { ConnectionEvent } from './events.ts';
import { exampleProviderId } from '../../provider-access/example-ids.ts';

const Nullable = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
const ReferenceId = Nullable('Your own id for the person, as given when connecting');
const WidgetSessionId = Nullable('The widget session the user connected through, if any');

const notice = (
  type: 'deauth' | 'access_revoked' | 'connection_error',
  status: string,
  description: string,
) =>
  Type.Object(
    {
      type: Type.Literal(type),
      status: Type.Literal(status),
      message: Type.String(),
      user: WebhookUserSchema,
    },
    { title: type, description },
  );

export const connectionEventSchemas: Record<ConnectionEvent['type'], TSchema> = {
  auth: Type.Object(
    {
      type: Type.Literal('auth'),
      status: Type.Literal('success'),
      user: WebhookUserSchema,
      reference_id: ReferenceId,
      widget_session_id: WidgetSessionId,
    },
    {
      title: 'auth',
      description: 'A user connected a provider account.',
      examples: [
        { type: 'auth', status: 'success', user, reference_id: 'your-user-42', widget_session_id: null },
      ],
    },
  ),
  auth_cancelled: Type.Object(
    {
      type: Type.Literal('auth_cancelled'),
      status: Type.Literal('error'),
      flow_id: Type.String({
        description: 'The user_id authenticateUser (or the widget) gave for the attempt',
      }),
      provider: Type.String(),
      message: Type.String(),
      reason: Type.String({ examples: ['access_denied'] }),
      reference_id: ReferenceId,
      widget_session_id: WidgetSessionId,
    },
    {
      title: 'auth_cancelled',
      description: 'A connection attempt failed, was denied or abandoned; the pending user is deleted.',
      examples: [
        {
          type: 'auth_cancelled',
          status: 'error',
          flow_id: '8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41',
          provider: exampleProviderId('watch'),
          message: 'User failed to authenticate and has been deleted',
          reason: 'access_denied',
          reference_id: 'your-user-42',
          widget_session_id: null,
        },
      ],
    },
  ),
  deauth: notice(
    'deauth',
    'success',
    'The user was disconnected (through the API or at the provider); no more data follows.',
  ),
  access_revoked: notice(
    'access_revoked',
    'warning',
    'The user revoked access at the provider; no more data follows.',
  ),
  connection_error: notice(
    'connection_error',
    'warning',
    'The connection is degraded (e.g. its tokens cannot be refreshed); the user may need to reconnect.',
  ),
  user_reauth: Type.Object(
    {
      type: Type.Literal('user_reauth'),
      status: Type.Literal('warning'),
      message: Type.String(),
      new_user: WebhookUserSchema,
      old_user: WebhookUserSchema,
      version: ModelVersionSchema,
    },
    {
      title: 'user_reauth',
      description: 'The same person reconnected the same provider: the old user is deleted (active: false).',
    },
  ),
  permission_change: Type.Object(
    {
      type: Type.Literal('permission_change'),
      status: Type.Literal('warning'),
      message: Type.String(),
      version: ModelVersionSchema,
      scopes_added: Type.String({ description: 'Comma separated' }),
      scopes_removed: Type.String({ description: 'Comma separated' }),
      user: WebhookUserSchema,
    },
    {
      title: 'permission_change',
      description:
        'The scopes the user granted changed: a provider notice, or a reconnect of the same account granting other ' +
        'scopes (sent after its user_reauth, about the new user). Informational, as the vendor’s event documents and ' +
        'FAQ describe it (docs/wire-contract.md#webhook-events).',
    },
  ),
};
