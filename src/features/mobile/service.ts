// The mobile feature: SDK connections (POST /v2/sdk/connect), SDK uploads (POST /v2/sdk/upload)
// normalized by a durable job, and export imports (POST /v2/import/{format}). Platform formats
// are read by each provider's mobile hooks (provider-kit/mobile/samples.ts); this module never
// names a platform.
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { Config } from '../../core/config.ts';
import { AppError, badRequest, invalidParameter, notFound, unauthorized } from '../../core/errors.ts';
import { newToken } from '../../core/ids.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { ProviderCatalog, ResolvedProvider } from '../../provider-access/catalog.ts';
import {
  type MobileBatch,
  MobileRecordError,
  type MobileHooks,
  type MobileSample,
} from '../../provider-kit/mobile/samples.ts';
import type { Db } from '../../store/db.ts';
import type { ConnectionsService } from '../connections/service.ts';
import type { DataService } from '../data/service.ts';
import type { IntegrationsService } from '../integrations/service.ts';
import * as usersRepo from '../users/repo.ts';
import { findUserForDeveloper, isUuid } from '../users/service.ts';
import { ExportFileError } from './export-stream.ts';
import { readExportIsolated } from './import-isolated.ts';
import { IMPORT_BATCH, IMPORT_QUEUE, NORMALIZE_UPLOAD_QUEUE } from './ports.ts';
import { settleDirtyDays } from './rebuild.ts';
import { sweepSpool } from './spool.ts';
import { createImportAdmission, createUploadAdmission } from './upload-admission.ts';
import * as repo from './repo.ts';
import { mobileSettings } from './settings.ts';

export type MobileDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  config: Config;
  jobs: JobQueue;
  providers: ProviderCatalog;
  integrations: Pick<IntegrationsService, 'requireSdkSource'>;
  connections: Pick<ConnectionsService, 'consumeSdkToken' | 'activateSdkConnection'>;
  data: Pick<DataService, 'ingest' | 'storedKeys' | 'removeRecords'>;
};

const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
const REFERENCE_ID = /^[\x21-\x7e]{1,255}$/;
/** Refused records named in an upload's answer; the count says how many there were in all. */
const MAX_REJECTIONS_ANSWERED = 100;

/** The connection an upload token names (from `authenticateUpload`). */
export type UploadConnection = NonNullable<Awaited<ReturnType<typeof repo.findConnectionByToken>>>;

export type ImportView = {
  import_id: string;
  user_id: string;
  status: repo.ImportRow['status'];
  bytes_read: number;
  total_bytes: number | null;
  records_read: number;
  records_imported: number;
  error?: string;
};

export function createMobileService(deps: MobileDeps) {
  const { db, clock, log, providers } = deps;
  const { limits: settings, imports: importSettings } = deps.config.settings.get(mobileSettings);
  const rebuildDeps = { db, log, data: deps.data };
  const admitUpload = createUploadAdmission({ db, clock, settings });
  const admitImport = createImportAdmission({ db, clock, settings });

  function mobileHooksOf(provider: ResolvedProvider | undefined): MobileHooks | undefined {
    return provider?.declaration.authKind === 'sdk' ? provider.connector?.mobile : undefined;
  }

  function parseReference(value: string | null | undefined): string | null {
    if (value === undefined || value === null || value === '') return null;
    if (!REFERENCE_ID.test(value))
      throw invalidParameter('reference_id', 'up to 255 printable characters without spaces');
    return value;
  }

  async function connect(input: {
    token: string;
    resource: string;
    referenceId?: string | null | undefined;
    device?: unknown;
  }): Promise<{ userId: string; uploadToken: string }> {
    const provider = providers.get(input.resource);
    if (!provider) throw notFound(`unknown provider "${input.resource}"`);
    if (!mobileHooksOf(provider))
      throw invalidParameter(
        'resource',
        `${provider.id} is not a mobile SDK source (APPLE, HEALTH_CONNECT, SAMSUNG)`,
      );
    const referenceId = parseReference(input.referenceId);
    const developerId = await deps.connections.consumeSdkToken(input.token);
    if (!developerId)
      throw unauthorized(
        'the token is unknown, expired or already used; get a new one from /v2/auth/generateAuthToken',
      );
    const uploadToken = newToken('mobileUpload', 32);
    const user = await db.transaction().execute(async (trx) => {
      await deps.integrations.requireSdkSource(developerId, provider.id, trx);
      const row = await deps.connections.activateSdkConnection(trx, {
        developerId,
        provider: provider.id,
        referenceId,
      });
      await repo.insertConnection(trx, {
        userId: row.id,
        tokenHash: hashToken(uploadToken),
        platform: provider.id,
        device: input.device ?? null,
        now: clock.now(),
      });
      return row;
    });
    return { userId: user.id, uploadToken };
  }

  /** The connection an upload token belongs to; 401 when it is unknown or was revoked. */
  async function authenticateUpload(authorization: string | undefined): Promise<UploadConnection> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) throw unauthorized('Authorization: Bearer <upload_token> is missing');
    const connection = await repo.findConnectionByToken(db, hashToken(match[1]!));
    if (!connection)
      throw unauthorized('the upload token is unknown or was revoked (the user was deauthenticated)');
    if (connection.status !== 'active')
      throw new AppError(
        'forbidden',
        `the connection is ${connection.status}; connect again with a new token`,
      );
    return connection;
  }

  /**
   * Checks the envelope (the records themselves are read by the job), stores the body and queues
   * its normalization in one transaction, and answers at once.
   */
  async function acceptUpload(connection: UploadConnection, body: unknown) {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw badRequest('invalid body: a JSON object is required');
    const envelope = body as Record<string, unknown>;
    if (envelope.platform !== connection.platform)
      throw invalidParameter(
        'platform',
        `this connection uploads ${connection.platform} records, got ${JSON.stringify(envelope.platform ?? null)}`,
      );
    let count = 0;
    for (const field of ['records', 'workouts', 'activity_summaries', 'deletions']) {
      const list = envelope[field];
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list)) throw invalidParameter(field, 'must be an array');
      count += list.length;
    }
    // Read now as well as by the job, so the app learns at once which records are refused and
    // why (the job reads the same body again and takes the same records).
    const rejected = readUploadBody(connection.platform, envelope).invalid;
    const uploadId = randomUUID();
    await db.transaction().execute(async (trx) => {
      await repo.insertUpload(trx, {
        id: uploadId,
        userId: connection.user_id,
        body: JSON.stringify(body),
        now: clock.now(),
      });
      await deps.jobs.send(NORMALIZE_UPLOAD_QUEUE, { uploadId }, { trx });
    });
    return {
      upload_id: uploadId,
      user_id: connection.user_id,
      items: count,
      rejected: rejected.slice(0, MAX_REJECTIONS_ANSWERED),
      rejected_count: rejected.length,
    };
  }

  /** An upload's records as the platform's hooks read them; a broken envelope is a 400. */
  function readUploadBody(platform: string, body: Record<string, unknown>): MobileBatch {
    const hooks = mobileHooksOf(providers.get(platform));
    if (!hooks) throw invalidParameter('platform', `${platform} is not a mobile SDK source`);
    try {
      return hooks.parseUpload(body, clock.now().getTime());
    } catch (error) {
      if (error instanceof MobileRecordError) throw badRequest(`invalid body: ${error.message}`);
      throw error;
    }
  }

  /** Stores a batch's samples and deletions; returns the days they changed (also marked dirty). */
  async function storeSamples(
    trx: Db,
    userId: string,
    samples: readonly MobileSample[],
    deletions: readonly string[],
  ) {
    const changed = await repo.upsertSamples(trx, userId, samples);
    for (const day of await repo.deleteSamples(trx, userId, deletions)) changed.add(day);
    await repo.markDirty(trx, userId, changed);
    return changed;
  }

  /** The upload job: platform records -> samples -> dirty days -> unified records and events. */
  async function processUpload(uploadId: string): Promise<void> {
    const upload = await repo.findUpload(db, uploadId);
    if (!upload) return;
    const user = await usersRepo.findUserById(db, upload.user_id);
    const hooks = mobileHooksOf(user ? providers.get(user.provider) : undefined);
    if (!user || !hooks) {
      await repo.deleteUpload(db, uploadId);
      return;
    }
    let batch;
    try {
      batch = hooks.parseUpload(JSON.parse(upload.body) as Record<string, unknown>, clock.now().getTime());
    } catch (error) {
      if (!(error instanceof MobileRecordError)) throw error;
      log.warn({ userId: user.id, uploadId, problem: error.message }, 'mobile upload rejected');
      await repo.deleteUpload(db, uploadId);
      return;
    }
    if (batch.invalid.length > 0)
      log.warn(
        { userId: user.id, uploadId, invalid: batch.invalid.length, problems: batch.invalid.slice(0, 5) },
        'mobile upload records skipped',
      );
    await db.transaction().execute(async (trx) => {
      await storeSamples(trx, user.id, batch.samples, batch.deletions);
    });
    await settleDirtyDays(rebuildDeps, user.id);
    // Only now has the work this upload feeds committed: until here a failure leaves the upload
    // for the job's retry (storing its samples again changes nothing; the dirty days remain).
    await repo.deleteUpload(db, uploadId);
  }

  // ---- export imports ----

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
      const user = await findUserForDeveloper(trx, developerId, target.userId);
      if (user.provider !== provider.id)
        throw invalidParameter(
          'user_id',
          `user ${user.id} is a ${user.provider} connection, not ${provider.id}`,
        );
      return user.id;
    }
    const referenceId = parseReference(target.referenceId)!;
    const existing = (await usersRepo.findUsersByReference(trx, developerId, referenceId)).filter(
      (user) => user.provider === provider.id && user.status === 'active',
    );
    if (existing.length > 0) return existing.at(-1)!.id;
    await deps.integrations.requireSdkSource(developerId, provider.id, trx);
    const created = await deps.connections.activateSdkConnection(trx, {
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
    if (input.userId) await findUserForDeveloper(db, input.developerId, input.userId);
    else parseReference(input.referenceId);
    const importId = randomUUID();
    const path = join(importDir(), `${importId}.upload`);
    const size = await spool(input.body, path);
    try {
      await db.transaction().execute(async (trx) => {
        const userId = await importUser(trx, input.developerId, provider, input);
        await repo.insertImport(trx, {
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
      });
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    return (await importStatus(input.developerId, importId))!;
  }

  function view(row: repo.ImportRow): ImportView {
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
    const row = await repo.findImport(db, importId);
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
    const row = await repo.findImport(db, importId);
    if (!row || row.status === 'completed' || row.status === 'failed') return row ? view(row) : undefined;
    const { provider } = exportProvider(row.format);
    await repo.updateImport(db, importId, { status: 'running' }, clock.now());
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
    try {
      // The file is read in an isolated child process (import-task.ts): a hostile export ends its
      // own import (out of memory, no progress, refused by the reader), never this process.
      await readExportIsolated(row.file_path, importSettings, {
        provider: provider.id,
        skip: row.checkpoint,
        batchSize: IMPORT_BATCH,
        onStart: async (totalBytes) => {
          await repo.updateImport(db, importId, { total_bytes: totalBytes }, clock.now());
        },
        onBatch: async (batch, progress) => {
          if (batch.invalid > 0)
            log.warn(
              { importId, invalid: batch.invalid, problem: batch.firstProblem },
              'export elements skipped',
            );
          read = progress.elementsRead;
          imported += batch.elements - batch.invalid;
          await db.transaction().execute(async (trx) => {
            await storeSamples(trx, row.user_id, batch.samples, []);
            await repo.updateImport(
              trx,
              importId,
              {
                bytes_read: progress.bytesRead,
                records_read: read,
                records_imported: imported,
                checkpoint: read,
              },
              clock.now(),
            );
          });
          await report(progress);
        },
      });
    } catch (error) {
      if (!(error instanceof ExportFileError)) throw error;
      await repo.updateImport(db, importId, { status: 'failed', error: error.message }, clock.now());
      await rm(row.file_path, { force: true });
      return importStatus(row.developer_id, importId);
    }
    await settleDirtyDays(rebuildDeps, row.user_id);
    const size = await stat(row.file_path).then(
      (s) => s.size,
      () => null,
    );
    await repo.updateImport(db, importId, { status: 'completed' }, clock.now());
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
    const row = await repo.findImport(db, importId);
    if (!row || row.status === 'completed' || row.status === 'failed') return;
    const error = `the import stopped ${attempts} time(s) without finishing (${cause})`;
    await repo.updateImport(db, importId, { status: 'failed', error }, clock.now());
    await rm(row.file_path, { force: true });
    log.warn({ importId, attempts, cause }, 'export import given up');
  }

  return {
    settings,
    importSettings,
    connect,
    authenticateUpload,
    admitUpload,
    admitImport,
    acceptUpload,
    processUpload,
    startImport,
    importStatus,
    runImport,
    sweepSpool: () => sweepSpool({ db, clock, log, dir: importDir() }),
    settleDirtyDays: (userId: string) => settleDirtyDays(rebuildDeps, userId),
    giveUpImport,
  };
}

export type MobileService = ReturnType<typeof createMobileService>;
