// Data-subject requests: one user's whole stored record as one archive (archive.ts). It reads
// through the owning features' services only: the connection (connections), records and raw
// payloads (data), the events sent about the user (webhooks), the providers' original files
// (original-files), the provider summaries kept of the user's days (day-companions).
import type { Readable } from 'node:stream';
import type { Clock } from '../../core/clock.ts';
import type { Db } from '../../store/db.ts';
import { findConnectionForDeveloper, toWireUser } from '../connections/service.ts';
import type { DataService } from '../data/service.ts';
import type { LabReportsService } from '../lab-reports/service.ts';
import type { Keyset } from '../data/repo.ts';
import type { WebhooksService } from '../delivery/service.ts';
import { MEDIA_TYPES } from '../output-formats/formats.ts';
import { findOriginalFit, listOriginalFiles } from '../original-files/repo.ts';
import { type KeptCursor, keptPage } from '../day-companions/repo.ts';
import { ARCHIVE_PAGE, type StoredFile, userArchive } from './archive.ts';

export type SubjectAccessDeps = {
  db: Db;
  clock: Clock;
  data: Pick<DataService, 'recordPage' | 'rawPayloadPage'>;
  webhooks: Pick<WebhooksService, 'eventPageOfUser'>;
  labReports: Pick<LabReportsService, 'reportPageOfReference' | 'uploadedFile'>;
};

export function createSubjectAccessService(deps: SubjectAccessDeps) {
  const { db, clock, data, webhooks, labReports } = deps;
  return {
    /**
     * The archive of one of the developer's users (404 for anyone else's), streamed: the
     * connection is checked before the first byte, the rest is read as the archive is.
     */
    async exportUser(developerId: string, userId: string): Promise<{ fileName: string; stream: Readable }> {
      const user = await findConnectionForDeveloper(db, developerId, userId);
      const generatedAt = clock.now();
      // Lab reports belong to a person (the developer's reference_id), not to one connection: the
      // archive holds those of the connection's reference_id. The file list is metadata only.
      const referenceId = user.reference_id;
      const reportPage = (after: string | null, limit = ARCHIVE_PAGE) =>
        referenceId === null
          ? Promise.resolve({ reports: [], next: null })
          : labReports.reportPageOfReference(developerId, referenceId, after, limit);
      const labFiles: StoredFile[] = [];
      for (let after: string | null = null, first = true; first || after !== null; first = false) {
        const page = await reportPage(after);
        for (const report of page.reports)
          labFiles.push({
            name: `lab_report_files/${report.upload_id}.${report.file_extension}`,
            description: 'An uploaded lab report file',
            open: () => labReports.uploadedFile(report.id),
          });
        after = page.next;
      }
      // Listed without their bytes (up to 16 MiB each): each is read when the archive reaches it.
      const owner = { developerId, connectionId: user.id };
      const originalFiles: StoredFile[] = (await listOriginalFiles(db, user.id)).map((file) => ({
        name: `original_files/${user.provider}/${encodeURIComponent(file.summaryId)}.${file.format}`,
        description: `The provider's original ${file.format.toUpperCase()} file of activity summary_id ${file.summaryId}, as received`,
        media_type: MEDIA_TYPES[file.format],
        open: async () => (await findOriginalFit(db, { ...owner, summaryId: file.summaryId })) ?? undefined,
      }));
      const stream = userArchive({
        user: toWireUser(user) as unknown as Record<string, unknown>,
        userId: user.id,
        provider: user.provider,
        generatedAt,
        records: (type) => async (after, limit) => {
          const page = await data.recordPage(user.id, type, { after: after as Keyset | null, limit });
          return { lines: page.records.map(({ key, record }) => ({ key, record })), next: page.next };
        },
        rawPayloads: async (after, limit) => {
          const rows = await data.rawPayloadPage(user.id, (after as number | null) ?? 0, limit);
          return {
            lines: rows.map((row) => ({
              id: Number(row.id),
              provider: row.provider,
              type: row.type,
              fetched_at: new Date(row.fetched_at).toISOString(),
              payload: row.payload,
            })),
            next: rows.length < limit ? null : Number(rows.at(-1)!.id),
          };
        },
        dayCompanions: async (after, limit) => {
          const rows = await keptPage(db, user.id, after as KeptCursor | null, limit);
          const last = rows.at(-1);
          return {
            lines: rows.map((row) => ({
              type: row.type,
              day: row.day,
              kind: row.kind,
              summary_id: row.summary_id,
              delivered_at: new Date(row.delivered_at).toISOString(),
              summary: JSON.parse(row.summary) as unknown,
            })),
            next:
              rows.length < limit || !last
                ? null
                : { type: last.type, day: last.day, kind: last.kind, summaryId: last.summary_id },
          };
        },
        events: async (after, limit) => {
          const rows = await webhooks.eventPageOfUser(
            developerId,
            user.id,
            (after as number | null) ?? 0,
            limit,
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
            next: rows.length < limit ? null : Number(rows.at(-1)!.seq),
          };
        },
        labReports: async (after, limit) => {
          const page = await reportPage(after as string | null, limit);
          return {
            lines: page.reports.map(({ id: _id, file_extension: _ext, ...report }) => report),
            next: page.next,
          };
        },
        labFiles,
        originalFiles,
      });
      const day = generatedAt.toISOString().slice(0, 10);
      return { fileName: `tributary-user-${user.id}-${day}.zip`, stream };
    },
  };
}

export type SubjectAccessService = ReturnType<typeof createSubjectAccessService>;
