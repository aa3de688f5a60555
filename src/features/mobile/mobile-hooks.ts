// A provider's mobile hooks (how its on-device platform's uploads and exports are read), for the
// providers whose data comes from the mobile SDK.
import type { ResolvedProvider } from '../../provider-access/catalog.ts';
import type { MobileHooks } from '../../provider-kit/mobile/samples.ts';

export function mobileHooksOf(provider: ResolvedProvider | undefined): MobileHooks | undefined {
  return provider?.declaration.authKind === 'sdk' ? provider.connector?.mobile : undefined;
}
