// The token lifecycle (after Nango's refresh design): refresh ahead of expiry; one refresh per
// connection at a time — a promise shared by every caller in this process, and the token row
// locked (SELECT … FOR UPDATE) across processes; after the lock the row is read again, so a
// refresh another process just finished is used instead of spending the (single-use) refresh
// token twice; the rotated refresh token is written in that same transaction; failures are
// counted in the database, and a definitive refusal (or K transient failures in a row) marks
// the connection broken, which sends `connection_error` once.
import type { Logger } from 'pino';
import type { Config } from '../core/config.ts';
import type { Clock } from '../core/clock.ts';
import type { SecretBox } from '../core/secret-box.ts';
import { readProviderTokens } from './token-store.ts';
import { ProviderDataError } from '../provider-kit/data-source.ts';
import type { ProviderCatalog } from './catalog.ts';
import type { Db } from '../store/db.ts';
import type { TokenSession } from './http-client.ts';
import { requestRefresh } from './oauth-refresh.ts';

/** Tokens expiring within this are refreshed before use. */
export const REFRESH_AHEAD_MS = 10 * 60_000;
/** Transient refresh failures in a row (timeouts, 5xx) before the connection counts as broken. */
export const MAX_REFRESH_FAILURES = 3;

export type TokenUser = { id: string; provider: string };

export type TokenManagerDeps = {
  db: Db;
  clock: Clock;
  config: Config;
  secretBox: SecretBox;
  log: Logger;
  providers: ProviderCatalog;
  /** connections.markConnectionBroken: status change and `connection_error`, in the caller's transaction. */
  markConnectionBroken(trx: Db, userId: string, reason: string): Promise<boolean>;
};

type Outcome =
  | { kind: 'ok'; token: string }
  | { kind: 'broken'; reason: string }
  | { kind: 'transient'; reason: string; retryAfterSeconds: number | null };

export function createTokenManager(deps: TokenManagerDeps) {
  const { db, clock, secretBox, log } = deps;
  const inflight = new Map<string, Promise<string>>();
  const runtime = { config: deps.config, clock, secretBox };

  const expiresSoon = (expiresAt: Date | null) =>
    expiresAt !== null && expiresAt.getTime() - clock.now().getTime() <= REFRESH_AHEAD_MS;

  async function countFailure(trx: Db, userId: string, reason: string): Promise<number> {
    const row = await trx
      .insertInto('connector_token_health')
      .values({ user_id: userId, consecutive_failures: 1, last_error: reason, last_failure_at: clock.now() })
      .onConflict((conflict) =>
        conflict.column('user_id').doUpdateSet((eb) => ({
          consecutive_failures: eb('connector_token_health.consecutive_failures', '+', 1),
          last_error: reason,
          last_failure_at: clock.now(),
        })),
      )
      .returning('consecutive_failures')
      .executeTakeFirstOrThrow();
    return row.consecutive_failures;
  }

  /** The refresh itself, with the token row locked for its whole duration. */
  async function refreshLocked(user: TokenUser, rejected: string | null): Promise<Outcome> {
    const provider = deps.providers.get(user.provider);
    if (!provider) return { kind: 'broken', reason: `${user.provider} has no OAuth to refresh with` };
    return db.transaction().execute(async (trx): Promise<Outcome> => {
      const row = await trx
        .selectFrom('provider_tokens')
        .select(['access_token', 'refresh_token', 'expires_at'])
        .where('user_id', '=', user.id)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return { kind: 'broken', reason: 'no stored tokens' };
      const access = secretBox.open(row.access_token);
      // Re-read after the lock: another process may have refreshed while we waited for it.
      const usable = rejected === null ? !expiresSoon(row.expires_at) : access !== rejected;
      if (usable) return { kind: 'ok', token: access };
      if (!row.refresh_token) {
        const expired = row.expires_at !== null && row.expires_at.getTime() <= clock.now().getTime();
        if (rejected === null && !expired) return { kind: 'ok', token: access };
        // An API key (authKind `api_key`) is the same: refused once, it is gone.
        const why = expired ? 'access token expired' : 'the provider refused the credentials';
        await deps.markConnectionBroken(trx, user.id, `${why} and there is no refresh token`);
        return { kind: 'broken', reason: 'no refresh token' };
      }
      if (!provider.oauth) {
        await deps.markConnectionBroken(trx, user.id, `${user.provider} has no OAuth to refresh with`);
        return { kind: 'broken', reason: 'no OAuth declaration' };
      }

      const result = await requestRefresh(provider, runtime, secretBox.open(row.refresh_token));
      if (result.kind === 'ok') {
        const tokens = result.tokens;
        await trx
          .updateTable('provider_tokens')
          .set({
            access_token: secretBox.seal(tokens.accessToken),
            // Providers that rotate send a new one; the others keep the old one valid.
            refresh_token: tokens.refreshToken ? secretBox.seal(tokens.refreshToken) : row.refresh_token,
            expires_at: tokens.expiresAt,
            updated_at: clock.now(),
          })
          .where('user_id', '=', user.id)
          .execute();
        await trx
          .insertInto('connector_token_health')
          .values({ user_id: user.id, consecutive_failures: 0, refreshed_at: clock.now() })
          .onConflict((conflict) =>
            conflict.column('user_id').doUpdateSet({ consecutive_failures: 0, refreshed_at: clock.now() }),
          )
          .execute();
        return { kind: 'ok', token: tokens.accessToken };
      }
      const failures = await countFailure(trx, user.id, result.reason);
      if (result.kind === 'definitive' || failures >= MAX_REFRESH_FAILURES) {
        await deps.markConnectionBroken(trx, user.id, `token refresh failed: ${result.reason}`);
        return { kind: 'broken', reason: result.reason };
      }
      return { kind: 'transient', reason: result.reason, retryAfterSeconds: result.retryAfterSeconds };
    });
  }

  /** One refresh per connection in this process; everyone asking meanwhile gets its result. */
  function singleFlight(user: TokenUser, rejected: string | null): Promise<string> {
    const running = inflight.get(user.id);
    if (running) return running;
    const flight = refreshLocked(user, rejected)
      .then((outcome) => {
        if (outcome.kind === 'ok') return outcome.token;
        log.warn({ userId: user.id, provider: user.provider, outcome }, 'token refresh did not succeed');
        if (outcome.kind === 'broken') {
          throw new ProviderDataError('unauthorized', `connection needs reconnecting: ${outcome.reason}`);
        }
        throw new ProviderDataError('unavailable', `token refresh failed: ${outcome.reason}`, {
          ...(outcome.retryAfterSeconds === null ? {} : { retryAfterSeconds: outcome.retryAfterSeconds }),
        });
      })
      .finally(() => inflight.delete(user.id));
    inflight.set(user.id, flight);
    return flight;
  }

  async function current(user: TokenUser): Promise<string> {
    const row = await readProviderTokens(db, user.id);
    if (!row) throw new ProviderDataError('unauthorized', 'no stored tokens for this user');
    if (!expiresSoon(row.expires_at)) return secretBox.open(row.access_token);
    return singleFlight(user, null);
  }

  async function failed(user: TokenUser, reason: string): Promise<void> {
    await db.transaction().execute((trx) => deps.markConnectionBroken(trx, user.id, reason));
  }

  return {
    current,
    /** The provider refused `token`: refresh once (unless someone already has) and hand out the new one. */
    rejected: (user: TokenUser, token: string) => singleFlight(user, token),
    failed,
    session: (user: TokenUser): TokenSession => ({
      current: () => current(user),
      rejected: (token) => singleFlight(user, token),
      failed: (reason) => failed(user, reason),
    }),
    /** A usable token for a last call (revocation); null when there is none to be had. */
    async freshOrNull(user: TokenUser): Promise<string | null> {
      try {
        return await current(user);
      } catch {
        return null;
      }
    },
  };
}

export type TokenManager = ReturnType<typeof createTokenManager>;
