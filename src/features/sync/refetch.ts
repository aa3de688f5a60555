import type { UserRow } from '../users/service.ts';
import type { DataSourceContext } from '../../provider-kit/data-source.ts';
import type { ResolvedProvider } from '../../provider-access/catalog.ts';
import type { ProviderDataType } from '../../provider-kit/types.ts';
import type { Db } from '../../store/db.ts';

/** Where refetched records go, and how a revoked grant is reported. */
export type NotificationSinks = {
  /**
   * Stores and sends records; with `replaceDays`, the stored records of those local days that are
   * not among them are removed first (they were deleted at the provider).
   */
  ingest(
    trx: Db,
    user: UserRow,
    type: ProviderDataType,
    records: readonly unknown[],
    options?: { replaceDays?: { startDate: string; endDate: string } },
  ): Promise<unknown>;
  markAccessRevoked(trx: Db, userId: string): Promise<boolean>;
  /** The user now grants these permissions at the provider (a `permission_change` if they differ). */
  changePermissions?(trx: Db, userId: string, granted: readonly string[]): Promise<boolean>;
};

/** Days a provider says changed, for some of its data types (from a notification or a poll). */
export type ChangedRange = {
  types: readonly ProviderDataType[];
  startDate: string;
  endDate: string;
  /** Records were deleted at the provider: the days are replaced by what the fetch returns. */
  deleted?: boolean;
};

/**
 * Fetches the changed days of one connection again and ingests them (which sends them on as
 * data events), one type at a time; returns the records sent. Shared by pushed notifications
 * and scheduled polls: both only differ in how they learn what changed.
 */
export async function refetchChanged(
  db: Db,
  provider: ResolvedProvider,
  user: UserRow,
  context: DataSourceContext,
  changed: ChangedRange,
  sinks: NotificationSinks,
): Promise<number> {
  const source = provider.connector?.data;
  if (!source) return 0;
  let sent = 0;
  for (const type of changed.types) {
    if (!provider.declaration.dataTypes.includes(type)) continue;
    const records: unknown[] = [];
    for await (const page of source.fetch({
      ...context,
      type,
      startDate: changed.startDate,
      endDate: changed.endDate,
    })) {
      records.push(...page.records);
    }
    if (changed.deleted) {
      // Even an empty answer counts: every record of these days may be gone.
      const replaceDays = { startDate: changed.startDate, endDate: changed.endDate };
      await db.transaction().execute((trx) => sinks.ingest(trx, user, type, records, { replaceDays }));
      sent += records.length;
      continue;
    }
    if (records.length === 0) continue;
    await db.transaction().execute((trx) => sinks.ingest(trx, user, type, records));
    sent += records.length;
  }
  return sent;
}
