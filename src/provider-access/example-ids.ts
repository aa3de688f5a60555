// Provider ids for documentation examples (OpenAPI, the dashboard's hints), read from the
// providers' own declarations: core code names no provider, and an example never names one this
// deployment does not have.
import type { DeviceKind } from '../provider-kit/types.ts';
import { providerRegistry } from '../providers/index.ts';

/** Providers a developer connects through OAuth and that are on unless an operator turns them off. */
const connectable = Object.values(providerRegistry)
  .map((provider) => provider.declaration)
  .filter((declaration) => declaration.authKind !== 'sdk' && declaration.credentials === 'deployment')
  .filter((declaration) => declaration.enabledByDefault);

/** The first such provider whose records come from a device of `kind` (any of them without a kind). */
export function exampleProviderId(kind?: DeviceKind): string {
  const found = connectable.find((declaration) => kind === undefined || declaration.deviceKind === kind);
  return (found ?? connectable[0]!).id;
}

/**
 * The first provider whose records are simulated (its data source plays arrivals: data/sandbox-arrivals.ts),
 * for examples of records that device never measured.
 */
export function exampleSimulatedProviderId(): string {
  const found = Object.values(providerRegistry).find((provider) => provider.connector?.data?.arrivals);
  return (found ?? Object.values(providerRegistry)[0]!).declaration.id;
}
