// `/v2/webhook`, the vendor contract's one webhook, is an alias for the developer's primary webhook
// destination (destination-management.ts): each call finds its id and does what the destination
// API does with it. What the alias adds is the contract's wording: `url` where the destination
// API says `settings.url`, and `PUT` semantics (a URL enables, `url: null` removes it).
import { AppError, invalidParameter } from '../../core/errors.ts';
import type { DeliveryFilters } from './deliveries.ts';
import type { DestinationManagement, DestinationView } from './destination-management.ts';

/** The primary webhook as `/v2/webhook` shows it. */
export type WebhookDestination = DestinationView & { url: string | null };

const SETTINGS_URL = 'invalid settings.url: ';

/** The alias's body names the URL `url`: a problem with `settings.url` is reworded to match. */
async function namingUrl<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AppError && error.message.startsWith(SETTINGS_URL))
      throw invalidParameter('url', error.message.slice(SETTINGS_URL.length));
    throw error;
  }
}

const withUrl = <V extends DestinationView>(view: V): V & { url: string | null } => ({
  ...view,
  url: (view.settings.url as string | null | undefined) ?? null,
});

export function createWebhookAlias(destinations: DestinationManagement) {
  const { primaryId } = destinations;
  return {
    async getDestination(developerId: string): Promise<WebhookDestination> {
      return withUrl(await destinations.get(developerId, await primaryId(developerId)));
    },

    /**
     * Sets the URL and/or enables or disables the primary webhook. Setting a URL enables it unless
     * `enabled: false`; enabling clears the failure streak and sends the held events. `url: null`
     * removes the URL (events are held until one is set).
     */
    async setDestination(
      developerId: string,
      input: { url?: string | null; enabled?: boolean },
    ): Promise<WebhookDestination & { replayed: number }> {
      const id = await primaryId(developerId);
      if (input.url === undefined && input.enabled === undefined)
        throw invalidParameter('body', 'expected url and/or enabled');
      if (input.url === null) {
        if (input.enabled !== undefined)
          throw invalidParameter('enabled', 'not with url null: a webhook without a URL holds its events');
        return withUrl(await destinations.removeUrl(developerId, id));
      }
      const changed = destinations.update(developerId, id, {
        ...(input.url === undefined ? {} : { settings: { url: input.url } }),
        enabled: input.enabled ?? true,
      });
      return withUrl(await namingUrl(changed));
    },

    rotateSecret: async (developerId: string) =>
      destinations.rotateSecret(developerId, await primaryId(developerId)),
    sendTest: async (developerId: string) => destinations.sendTest(developerId, await primaryId(developerId)),
    listDeliveries: async (developerId: string, filters: DeliveryFilters) =>
      destinations.deliveries(developerId, await primaryId(developerId), filters),
    replay: async (developerId: string, eventId: string) =>
      destinations.replay(developerId, await primaryId(developerId), eventId),
  };
}
