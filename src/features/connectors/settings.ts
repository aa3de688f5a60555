// The connectors feature's settings (declared here, parsed once at boot by core/settings.ts): the limit on
// unsigned provider notifications, and per provider (templates expanded over the catalog) the poll
// interval and the key notifications are signed with.
import { defineProviderSettings, defineSettings, numberSetting, textSetting } from '../../core/settings.ts';
import { windowRuleSetting } from '../limits/settings.ts';

export const syncSettings = defineSettings({
  id: 'sync',
  owner: 'features/connectors',
  settings: {
    NOTIFICATION_SOURCE_LIMIT: windowRuleSetting(
      { limit: 600, windowSeconds: 60 },
      'Unsigned provider notifications (a connector declaring `unsigned`) per sender address and provider, <count>/<seconds>.',
    ),
  },
  build: (v) => ({ sourceRule: v.NOTIFICATION_SOURCE_LIMIT }),
});

export const providerSyncSettings = defineProviderSettings({
  id: 'provider-sync',
  owner: 'features/connectors',
  templates: {
    POLL_MINUTES: numberSetting({
      description:
        "Minutes between polls of a poll-only provider (default: the provider's declared interval).",
      default: undefined,
      exclusiveMinimum: 0,
      problem: 'must be a positive number',
    }),
    WEBHOOK_SECRET: textSetting({
      description:
        'The key notifications are signed with, when the provider issues one of its own when the subscription is created (shown once); default: the client secret.',
      default: undefined,
    }),
  },
  build: (v) => ({ pollMinutes: v.POLL_MINUTES, webhookSecret: v.WEBHOOK_SECRET }),
});
