// Data-subject requests: one user's whole stored record as one archive (archive.ts). It reads
// through the owning features' services only: the connection (connections), records and raw
// payloads (data), the events sent about the user (webhooks).
import type { Readable } from 'node:stream';
import type { Clock } from '../../core/clock.ts';
import type { Db } from '../../store/db.ts';
import { findConnectionForDeveloper, toWireUser } from '../connections/service.ts';
import type { DataService } from '../data/service.ts';
import type { Keyset } from '../data/repo.ts';
import type { WebhooksService } from '../webhooks/service.ts';
import { ARCHIVE_PAGE, userArchive } from './archive.ts';

export type SubjectAccessDeps = {
  db: Db;
  clock: Clock;
  data: Pick<DataService, 'recordPage' | 'rawPayloadPage'>;
  webhooks: Pick<WebhooksService, 'eventPageOfUser'>;
};

export function createSubjectAccessService(deps: SubjectAccessDeps) {
  const { db, clock, data, webhooks } = deps;
  return {
    /**
     * The archive of one of the developer's users (404 for anyone else's), streamed: the
     * connection is checked before the first byte, the rest is read as the archive is.
     */
    async exportUser(developerId: string, userId: string): Promise<{ fileName: string; stream: Readable }> {
      const user = await findConnectionForDeveloper(db, developerId, userId);
      const generatedAt = clock.now();
      const stream = userArchive({
        user: toWireUser(user) as unknown as Record<string, unknown>,
        userId: user.id,
        provider: user.provider,
        generatedAt,
        records: (type) => async (after) => {
          const page = await data.recordPage(user.id, type, {
            after: after as Keyset | null,
            limit: ARCHIVE_PAGE,
          });
          return { lines: page.records.map(({ key, record }) => ({ key, record })), next: page.next };
        },
        rawPayloads: async (after) => {
          const rows = await data.rawPayloadPage(user.id, (after as number | null) ?? 0, ARCHIVE_PAGE);
          return {
            lines: rows.map((row) => ({
              id: Number(row.id),
              provider: row.provider,
              type: row.type,
              fetched_at: new Date(row.fetched_at).toISOString(),
              payload: row.payload,
            })),
            next: rows.length < ARCHIVE_PAGE ? null : Number(rows.at(-1)!.id),
          };
        },
        events: async (after) => {
          const rows = await webhooks.eventPageOfUser(
            developerId,
            user.id,
            (after as number | null) ?? 0,
            ARCHIVE_PAGE,
          );
          return {
            lines: rows.map((row) => ({
              id: row.id,
              type: row.type,
              status: row.status,
              destination_id: row.destination_id,
              created_at: new Date(row.created_at).toISOString(),
              delivered_at: row.delivered_at ? new Date(row.delivered_at).toISOString() : null,
              body: JSON.parse(row.body) as unknown,
            })),
            next: rows.length < ARCHIVE_PAGE ? null : Number(rows.at(-1)!.seq),
          };
        },
      });
      const day = generatedAt.toISOString().slice(0, 10);
      return { fileName: `tributary-user-${user.id}-${day}.zip`, stream };
    },
  };
}

export type SubjectAccessService = ReturnType<typeof createSubjectAccessService>;
