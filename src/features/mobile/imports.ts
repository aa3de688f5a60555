// Export imports (POST /v2/import/{format}): the file is spooled to disk within the size limit,
// the import is stored and queued for a worker (or run by the CLI itself), then read in an
// isolated child process batch by batch, each batch and its checkpoint committing together so a
// run that dies resumes after the last stored batch. The platform that reads a format is found
// by its mobile hooks' `exportFile`.
import { createWriteStream, mkdirSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, badRequest, invalidParameter, notFound } from '../../core/errors.ts';
import { heapGrowth } from '../../core/heap-growth.ts';
import { newUuid } from '../../core/ids.ts';
import type { PreparedIsolation } from '../../core/isolation.ts';
import type { ResolvedProvider } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import * as connectionsRepo from '../connections/repo.ts';
import { findConnectionForDeveloper, isUuid } from '../connections/service.ts';
import type { MobileDeps } from './deps.ts';
import { ExportFileError } from './export-stream.ts';
import { type ImportSettings, readExportIsolated } from './import-isolated.ts';
import { mobileHooksOf } from './mobile-hooks.ts';
import { ImportedDays } from './imported-days.ts';
import { IMPORT_BATCH, IMPORT_QUEUE, IMPORT_KEPT_BYTES, IMPORT_REBUILD_DAYS } from './ports.ts';
import { prepareRebuild, settleDirtyDays } from './rebuild.ts';
import { parseReference } from './reference-id.ts';
import * as importsRepo from './imports-repo.ts';
import { upsertSamples } from './samples-repo.ts';
import type { MobileSettings } from './settings.ts';
import { createWarmReaders } from './warm-readers.ts';

export type ImportView = {
  import_id: string;
  user_id: string;
  status: importsRepo.ImportRow['status'];
  bytes_read: number;
  total_bytes: number | null;
  records_read: number;
  records_imported: number;
  error?: string;
};

export function createExportImports(
  deps: MobileDeps,
  settings: MobileSettings,
  importSettings: ImportSettings,
) {
  const { db, clock, log, providers } = deps;
  const rebuildDeps = { db, log, data: deps.data };
  const warmReaders = createWarmReaders(importSettings);

  function exportProvider(format: string) {
    const provider = providers
      .list()
      .find((candidate) => mobileHooksOf(candidate)?.exportFile?.format === format);
    const spec = mobileHooksOf(provider)?.exportFile;
    if (!provider || !spec) throw notFound(`no importer for "${format}"`);
    return { provider, spec };
  }

  const importDir = () => {
    const dir = join(deps.config.dataDir, 'imports');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  };

  /** Writes the upload to a file (a zip can only be read with random access), within the size limit. */
  async function spool(source: Readable, path: string): Promise<number> {
    let size = 0;
    const limit = settings.importMaxBytes;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size > limit)
          done(
            new AppError(
              'payload_too_large',
              `the export is larger than ${limit} bytes (MOBILE_IMPORT_MAX_BYTES)`,
            ),
          );
        else done(null, chunk);
      },
    });
    try {
      await pipeline(source, counter, createWriteStream(path, { mode: 0o600 }));
    } catch (error) {
      await rm(path, { force: true });
      if (error instanceof AppError) throw error;
      throw badRequest('the upload ended before the whole file arrived', { cause: error });
    }
    if (size === 0) {
      await rm(path, { force: true });
      throw badRequest('invalid body: the export file is empty');
    }
    return size;
  }

  /** The user an import goes to: given, found by reference_id, or created (an SDK user of the platform). */
  async function importUser(
    trx: Db,
    developerId: string,
    provider: ResolvedProvider,
    target: { userId?: string; referenceId?: string },
  ) {
    if (target.userId) {
      const user = await findConnectionForDeveloper(trx, developerId, target.userId);
      if (user.provider !== provider.id)
        throw invalidParameter(
          'user_id',
          `user ${user.id} is a ${user.provider} connection, not ${provider.id}`,
        );
      return user.id;
    }
    const referenceId = parseReference(target.referenceId)!;
    const existing = (await connectionsRepo.findConnectionsByReference(trx, developerId, referenceId)).filter(
      (user) => user.provider === provider.id && user.status === 'active',
    );
    if (existing.length > 0) return existing.at(-1)!.id;
    await deps.integrations.requireSdkSource(developerId, provider.id, trx);
    const created = await deps.connecting.activateSdkConnection(trx, {
      developerId,
      provider: provider.id,
      referenceId,
    });
    return created.id;
  }

  async function startImport(input: {
    developerId: string;
    format: string;
    userId?: string | undefined;
    referenceId?: string | undefined;
    body: Readable;
    /** False when the caller runs the import itself (the CLI); otherwise a worker runs it. */
    enqueue?: boolean;
  }): Promise<ImportView> {
    const { provider } = exportProvider(input.format);
    if (Boolean(input.userId) === Boolean(input.referenceId))
      throw badRequest('invalid query: give exactly one of user_id and reference_id');
    if (input.userId) await findConnectionForDeveloper(db, input.developerId, input.userId);
    else parseReference(input.referenceId);
    const importId = newUuid();
    const path = join(importDir(), `${importId}.upload`);
    // The reader boots while the upload arrives (warm-readers.ts).
    warmReaders.prepare(importId, provider.id);
    // The upload's chunks are Buffers counted against V8's old-generation slack (core/heap-growth.ts).
    const release = heapGrowth.hold();
    const size = await spool(input.body, path)
      .catch((error: unknown) => {
        warmReaders.discard(importId);
        throw error;
      })
      .finally(release);
    // The answer is the import as accepted (queued), read in the transaction that stores it: read
    // after the commit, a worker woken by the queue may already have started it.
    let accepted: importsRepo.ImportRow | undefined;
    try {
      accepted = await db.transaction().execute(async (trx) => {
        const userId = await importUser(trx, input.developerId, provider, input);
        await importsRepo.insertImport(trx, {
          id: importId,
          developerId: input.developerId,
          userId,
          format: input.format,
          filePath: path,
          totalBytes: size,
          now: clock.now(),
        });
        // Grouped by developer: MOBILE_IMPORT_DEVELOPER_CONCURRENCY of one developer's imports run at once.
        if (input.enqueue ?? true)
          await deps.jobs.send(
            IMPORT_QUEUE,
            { importId },
            { trx, id: importId, group: { id: input.developerId } },
          );
        return importsRepo.findImport(trx, importId);
      });
    } catch (error) {
      warmReaders.discard(importId);
      await rm(path, { force: true });
      throw error;
    }
    return view(accepted!);
  }

  function view(row: importsRepo.ImportRow): ImportView {
    return {
      import_id: row.id,
      user_id: row.user_id,
      status: row.status,
      bytes_read: row.bytes_read,
      total_bytes: row.total_bytes,
      records_read: row.records_read,
      records_imported: row.records_imported,
      ...(row.error ? { error: row.error } : {}),
    };
  }

  async function importStatus(developerId: string, importId: string): Promise<ImportView | undefined> {
    if (!isUuid(importId)) return undefined;
    const row = await importsRepo.findImport(db, importId);
    return row && row.developer_id === developerId ? view(row) : undefined;
  }

  /**
   * Runs (or resumes) an import. Each batch's samples and the checkpoint after it commit together,
   * so a run that dies resumes after the last stored batch; samples are upserted by content id,
   * so importing the same export again stores nothing new and changes no day.
   */
  async function runImport(
    importId: string,
    onProgress?: (view: ImportView) => void,
  ): Promise<ImportView | undefined> {
    // The reader forked when this process spooled the upload, if it still waits; killed here unless
    // the read took it (discarding a taken one does nothing).
    const warmReader = warmReaders.take(importId);
    try {
      return await runTaken(importId, warmReader, onProgress);
    } finally {
      warmReader?.discard();
    }
  }

  async function runTaken(
    importId: string,
    warmReader: PreparedIsolation | undefined,
    onProgress?: (view: ImportView) => void,
  ): Promise<ImportView | undefined> {
    const row = await importsRepo.findImport(db, importId);
    if (!row || row.status === 'completed' || row.status === 'failed') return row ? view(row) : undefined;
    const { provider } = exportProvider(row.format);
    await importsRepo.updateImport(db, importId, { status: 'running' }, clock.now());
    // This process mostly waits on the reader until the last batch; what the rebuild after it
    // compiles on its first write (a fresh worker's, the CLI's) is compiled meanwhile.
    prepareRebuild(rebuildDeps).catch((error: unknown) =>
      log.warn({ importId, err: error }, 'compiling the rebuild ahead failed'),
    );
    // What this run stores, kept for the rebuild at its end (within a budget), in a file.
    const memory = new ImportedDays(importDir(), IMPORT_KEPT_BYTES);
    try {
      return await readAndRebuild(row, provider, warmReader, memory, onProgress);
    } finally {
      memory.close();
    }
  }

  /** `runTaken` with the import running: its export read and stored, its days rebuilt. */
  async function readAndRebuild(
    row: importsRepo.ImportRow,
    provider: ResolvedProvider,
    warmReader: PreparedIsolation | undefined,
    memory: ImportedDays,
    onProgress?: (view: ImportView) => void,
  ): Promise<ImportView | undefined> {
    const importId = row.id;
    let imported = row.records_imported;
    let read = row.checkpoint;
    const report = async (progress: { bytesRead: number; totalBytes: number }) => {
      onProgress?.({
        ...view(row),
        status: 'running',
        bytes_read: progress.bytesRead,
        total_bytes: progress.totalBytes,
        records_read: read,
        records_imported: imported,
      });
    };
    // Each batch arrives and goes to the store as Buffers in megabytes (core/heap-growth.ts); the
    // rebuild after them is left to V8's own factor: what it allocates is garbage in earnest, and
    // at 1 GB the doubled growth raised the importing process's peak by ~10 MB there.
    const release = heapGrowth.hold();
    try {
      // The file is read in an isolated child process (import-task.ts): a hostile export ends its
      // own import (out of memory, no progress, refused by the reader), never this process.
      await readExportIsolated(row.file_path, importSettings, {
        provider: provider.id,
        prepared: warmReader,
        skip: row.checkpoint,
        batchSize: IMPORT_BATCH,
        onStart: async (totalBytes) => {
          await importsRepo.updateImport(db, importId, { total_bytes: totalBytes }, clock.now());
        },
        onBatch: async (batch, progress) => {
          if (batch.invalid > 0)
            log.warn(
              { importId, invalid: batch.invalid, problem: batch.firstProblem },
              'export elements skipped',
            );
          read = progress.elementsRead;
          imported += batch.elements - batch.invalid;
          const { rows } = batch;
          // A batch and its checkpoint commit together (one statement), so a run that dies
          // resumes after the last stored batch.
          await upsertSamples(db, row.user_id, rows, {
            importId,
            bytesRead: progress.bytesRead,
            recordsRead: read,
            recordsImported: imported,
            now: clock.now(),
          });
          memory.add(rows);
          await report(progress);
        },
      });
    } catch (error) {
      if (!(error instanceof ExportFileError)) throw error;
      await importsRepo.updateImport(db, importId, { status: 'failed', error: error.message }, clock.now());
      await rm(row.file_path, { force: true });
      return importStatus(row.developer_id, importId);
    } finally {
      release();
    }
    await settleDirtyDays(rebuildDeps, row.user_id, { daysPerBatch: IMPORT_REBUILD_DAYS, memory });
    const size = await stat(row.file_path).then(
      (s) => s.size,
      () => null,
    );
    await importsRepo.updateImport(db, importId, { status: 'completed' }, clock.now());
    await rm(row.file_path, { force: true });
    log.info({ importId, userId: row.user_id, bytes: size, records: read }, 'export import completed');
    const final = await importStatus(row.developer_id, importId);
    if (final) onProgress?.(final);
    return final;
  }

  /**
   * The queue gave up on an import's job (its worker stopped each time, or every attempt failed):
   * the import fails with the reason and its spooled file goes.
   */
  async function giveUpImport(importId: string, cause: string, attempts: number): Promise<void> {
    const row = await importsRepo.findImport(db, importId);
    if (!row || row.status === 'completed' || row.status === 'failed') return;
    const error = `the import stopped ${attempts} time(s) without finishing (${cause})`;
    await importsRepo.updateImport(db, importId, { status: 'failed', error }, clock.now());
    await rm(row.file_path, { force: true });
    log.warn({ importId, attempts, cause }, 'export import given up');
  }

  return { importDir, startImport, importStatus, runImport, giveUpImport };
}
