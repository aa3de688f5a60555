// One provider's declaration loaded on its own, for a process that needs only that provider (an
// import's reader): loading the registry (providers/index.ts) loads every provider's modules,
// about two seconds of a reader's start on a busy machine (issue 44), for one of them.
import type { Provider } from '../../provider-kit/types.ts';

/**
 * The provider `id`, from its folder's provider.ts when the folder is named after the id
 * (`HEALTH_CONNECT` → providers/health_connect/), as scripts/new-provider.ts suggests; otherwise
 * (or when that module does not declare it) from the whole registry.
 */
export async function loadProvider(id: string): Promise<Provider | undefined> {
  if (/^[A-Z0-9_]+$/.test(id)) {
    const module = (await import(`../../providers/${id.toLowerCase()}/provider.ts`).catch(
      () => ({}),
    )) as Record<string, unknown>;
    for (const candidate of Object.values(module))
      if ((candidate as Provider | undefined)?.declaration?.id === id) return candidate as Provider;
  }
  const { providerRegistry } = await import('../../providers/index.ts');
  return (providerRegistry as Readonly<Record<string, Provider>>)[id];
}
