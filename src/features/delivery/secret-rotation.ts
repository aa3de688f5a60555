// A signing secret replaced: the new one is returned once, and each replaced one keeps signing
// alongside it for its overlap (24 h), so a receiver can switch over. Any destination with a
// secret (every webhook) rotates the same way.
import { AppError, conflict, notFound } from '../../core/errors.ts';
import type { Clock } from '../../core/clock.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import type { Db } from '../../store/db.ts';
import {
  byDestination,
  type DestinationRow,
  findDeveloperDestination,
  type RetiredSecret,
} from './destination-repo.ts';
import { generateWebhookSecret, MAX_RETIRED_SECRETS, SECRET_ROTATION_OVERLAP_MS } from './signing.ts';

/**
 * A new current secret, returned once; the one it replaces keeps signing alongside it for 24 h,
 * as does every secret replaced before within its own 24 h. Rotations of one destination are
 * serialised on its row, so concurrent calls each replace the secret the previous call made
 * (and each secret handed out signs). Past MAX_RETIRED_SECRETS secrets still in their overlap,
 * a rotation is refused (429) until the oldest expires, rather than cut an overlap short.
 */
export async function rotateSigningSecret(
  deps: { db: Db; secretBox: SecretBox; clock: Clock },
  developerId: string,
  id: string,
): Promise<{ secret: string; previousSecretExpiresAt: Date }> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await findDeveloperDestination(trx, developerId, id, true);
    if (!row) throw notFound(`no destination "${id}"`);
    if (row.secret === null) throw conflict('only a webhook has a signing secret');
    const now = deps.clock.now();
    const signing = (await retiredSecrets(trx, [row.id], now)).get(row.id) ?? [];
    const oldest = signing[signing.length - 1];
    if (oldest && signing.length >= MAX_RETIRED_SECRETS) {
      const wait = Math.max(1, Math.ceil((oldest.signsUntil.getTime() - now.getTime()) / 1000));
      throw new AppError(
        'rate_limited',
        `${signing.length} replaced secrets still sign deliveries within their 24 h overlap, the most ` +
          `allowed; the oldest stops at ${oldest.signsUntil.toISOString()}, rotate again after that`,
        { headers: { 'Retry-After': String(wait) } },
      );
    }
    const secret = generateWebhookSecret();
    const signsUntil = new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS);
    await rotateSecret(trx, row, deps.secretBox.seal(secret), now, signsUntil);
    return { secret, previousSecretExpiresAt: signsUntil };
  });
}

/** Until when the most recently replaced secret still signs (what a receiver switching over relies on); null: none does. */
export async function previousSecretExpiry(db: Db, row: DestinationRow, now: Date): Promise<Date | null> {
  if (row.secret === null) return null;
  return (await retiredSecrets(db, [row.id], now)).get(row.id)?.[0]?.signsUntil ?? null;
}

/** Replaced secrets still signing at `now`, per destination, newest first (sealed). */
export async function retiredSecrets(
  db: Db,
  destinationIds: readonly string[],
  now: Date,
): Promise<Map<string, RetiredSecret[]>> {
  if (destinationIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_retired_secrets')
    .select(['destination_id', 'secret', 'signs_until'])
    .where('destination_id', 'in', [...new Set(destinationIds)])
    .where('signs_until', '>', now)
    .orderBy('signs_until', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return byDestination(rows);
}

/**
 * Makes `sealedNew` the current secret; the one it replaces keeps signing until `signsUntil`.
 * Replaced secrets whose overlap has ended are forgotten. Runs with the
 * destination row locked.
 */
export async function rotateSecret(
  db: Db,
  destination: Pick<DestinationRow, 'id' | 'secret'>,
  sealedNew: string,
  at: Date,
  signsUntil: Date,
): Promise<void> {
  if (destination.secret === null) throw new Error(`destination ${destination.id} has no signing secret`);
  const current = destination.secret;
  await db
    .deleteFrom('webhook_retired_secrets')
    .where('destination_id', '=', destination.id)
    .where('signs_until', '<=', at)
    .execute();
  await db
    .insertInto('webhook_retired_secrets')
    .values({
      destination_id: destination.id,
      secret: current,
      retired_at: at,
      signs_until: signsUntil,
    })
    .execute();
  await db
    .updateTable('webhook_destinations')
    .set({ secret: sealedNew })
    .where('id', '=', destination.id)
    .execute();
}
