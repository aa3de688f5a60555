// Per-provider settings the provider kit reads (declared once, expanded over the provider catalog
// by the composition root; parsed by core/settings.ts).
import { defineProviderSettings, textSetting } from '../core/settings.ts';

export const providerKitSettings = defineProviderSettings({
  id: 'provider-kit',
  owner: 'provider-kit/signatures.ts',
  templates: {
    WEBHOOK_VERIFY_TOKEN: textSetting({
      description:
        'Token for subscription handshakes (default: derived from ENCRYPTION_KEY, the same in every process).',
      default: undefined,
    }),
  },
  build: (v) => ({ verifyToken: v.WEBHOOK_VERIFY_TOKEN }),
});
