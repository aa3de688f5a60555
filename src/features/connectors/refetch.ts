// Fetching again what a provider says changed, for notifications and polls alike. The pages go
// through the data module's one intake (the same as reads and backfills): stored in batches with
// their raw payloads, sent on as data events batch by batch, the days recorded as synced.
import type { ConnectionRow } from '../connections/service.ts';
import type { DataPage, DataSourceContext } from '../../provider-kit/data-source.ts';
import type { ResolvedProvider } from '../../provider-access/catalog.ts';
import type { ProviderDataType } from '../../provider-kit/types.ts';
import type { RemovedRecords } from '../../provider-kit/api.ts';
import type { Db } from '../../store/db.ts';

/** Where refetched records go, and how a revoked grant is reported. */
export type NotificationSinks = {
  /**
   * Takes in the pages of local days [fromDay, toDay) fetched again: stored batch by batch with
   * their raw payloads and sent as data events, the days recorded as synced; with `replace`, the
   * stored records of those days the pages no longer hold are removed (deleted at the provider).
   * Returns the records stored.
   */
  intakeChanged(
    user: ConnectionRow,
    type: ProviderDataType,
    range: { fromDay: string; toDay: string },
    pages: AsyncIterable<DataPage>,
    options: { replace?: boolean },
  ): Promise<number>;
  /**
   * Removes the records of `type` the provider deleted (by identity) and announces them to the
   * developer; returns how many were stored.
   */
  removeDeleted(user: ConnectionRow, type: ProviderDataType, ids: readonly string[]): Promise<number>;
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
  /** Records deleted at the provider by id, wherever they lie (ChangedData.removed). */
  removed?: RemovedRecords;
};

/**
 * Fetches the changed days of one connection again and takes them in (which sends them on as
 * data events), one type at a time; returns the records sent. Shared by pushed notifications
 * and scheduled polls: both only differ in how they learn what changed.
 */
export async function refetchChanged(
  _db: Db,
  provider: ResolvedProvider,
  user: ConnectionRow,
  context: DataSourceContext,
  changed: ChangedRange,
  sinks: NotificationSinks,
): Promise<number> {
  const source = provider.connector?.data;
  if (!source) return 0;
  let sent = 0;
  // Deletions first: a record deleted and then recreated under the same id comes back below.
  for (const type of changed.removed?.types ?? []) {
    if (!provider.declaration.dataTypes.includes(type) || changed.removed!.ids.length === 0) continue;
    await sinks.removeDeleted(user, type, changed.removed!.ids);
  }
  for (const type of changed.types) {
    if (!provider.declaration.dataTypes.includes(type)) continue;
    const pages = source.fetch({ ...context, type, startDate: changed.startDate, endDate: changed.endDate });
    // Even an empty answer counts when records were deleted: every record of these days may be gone.
    sent += await sinks.intakeChanged(
      user,
      type,
      { fromDay: changed.startDate, toDay: changed.endDate },
      pages,
      { replace: changed.deleted === true },
    );
  }
  return sent;
}
