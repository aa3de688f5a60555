// Push subscriptions Tributary holds at providers that have a subscription API. `ensure`
// creates (or adopts) them for this deployment's callback URL and records them: the records
// are what a provider without signatures is verified against, and what `renewDue` extends
// before they lapse.
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import type { ProviderCatalog, ResolvedProvider } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import { notifiable } from './notifications.ts';
import { verifyTokenFor } from '../../provider-kit/signatures.ts';
import type { ProviderHttp, SubscriptionRecord } from '../../provider-kit/api.ts';

/** Subscriptions expiring within this are renewed. */
const RENEW_AHEAD_MS = 7 * 86_400_000;

export const callbackPath = (providerId: string) => `/providers/${providerId}/webhook`;

export function createSubscriptions(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  providers: ProviderCatalog;
  appHttp(provider: ResolvedProvider): ProviderHttp;
}) {
  const { db, clock, config } = deps;

  return {
    /** Subscribes this deployment (its PUBLIC_URL, unless another base is given) at the provider. */
    async ensure(providerId: string, base = config.publicUrl): Promise<SubscriptionRecord[]> {
      const { provider, hooks } = notifiable(deps.providers, providerId);
      if (!hooks.subscribe) {
        throw new Error(
          `${provider.id} has no subscription API; set the callback URL in its developer dashboard`,
        );
      }
      if (!provider.enabled) throw new Error(`${provider.id} is not configured (client id and secret)`);
      const callbackUrl = `${base.replace(/\/+$/, '')}${callbackPath(provider.id)}`;
      const records = await hooks.subscribe({
        http: deps.appHttp(provider),
        callbackUrl,
        verifyToken: verifyTokenFor(config, provider.id),
      });
      for (const record of records) {
        const row = {
          data_type: record.dataType,
          event_type: record.eventType,
          callback_url: callbackUrl,
          expires_at: record.expiresAt,
        };
        await db
          .insertInto('connector_subscriptions')
          .values({ provider: provider.id, external_id: record.externalId, created_at: clock.now(), ...row })
          .onConflict((conflict) => conflict.columns(['provider', 'external_id']).doUpdateSet(row))
          .execute();
      }
      return records;
    },

    /** Renews every recorded subscription close to its expiry; returns how many were renewed. */
    async renewDue(): Promise<number> {
      const due = await db
        .selectFrom('connector_subscriptions')
        .select(['provider', 'external_id'])
        .where('expires_at', '<', new Date(clock.now().getTime() + RENEW_AHEAD_MS))
        .execute();
      let renewed = 0;
      for (const row of due) {
        const provider = deps.providers.get(row.provider);
        const renew = provider?.connector?.notifications?.renew;
        if (!provider?.enabled || !renew) continue;
        const expiresAt = await renew({ http: deps.appHttp(provider), externalId: row.external_id });
        await db
          .updateTable('connector_subscriptions')
          .set({ expires_at: expiresAt })
          .where('provider', '=', row.provider)
          .where('external_id', '=', row.external_id)
          .execute();
        renewed += 1;
      }
      return renewed;
    },

    async list(providerId: string) {
      return db
        .selectFrom('connector_subscriptions')
        .selectAll()
        .where('provider', '=', providerId)
        .execute();
    },
  };
}
