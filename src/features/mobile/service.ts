// The mobile feature: SDK connections (POST /v2/sdk/connect), SDK uploads (POST /v2/sdk/upload)
// normalized by a durable job, and export imports (POST /v2/import/{format}, imports.ts). Platform
// formats are read by each provider's mobile hooks (provider-kit/mobile/samples.ts); this feature
// never names a platform.
import { createHash } from 'node:crypto';
import { AppError, badRequest, invalidParameter, notFound, unauthorized } from '../../core/errors.ts';
import { newToken, newUuid } from '../../core/ids.ts';
import { type MobileBatch, MobileRecordError } from '../../provider-kit/mobile/samples.ts';
import * as connectionsRepo from '../connections/repo.ts';
import type { MobileDeps } from './deps.ts';
import { createExportImports } from './imports.ts';
import { mobileHooksOf } from './mobile-hooks.ts';
import { NORMALIZE_UPLOAD_QUEUE } from './ports.ts';
import { settleDirtyDays } from './rebuild.ts';
import { parseReference } from './reference-id.ts';
import * as repo from './repo.ts';
import { storeSamples } from './sample-store.ts';
import { mobileSettings } from './settings.ts';
import { sweepSpool } from './spool.ts';
import { createImportAdmission, createUploadAdmission } from './upload-admission.ts';

export type { MobileDeps } from './deps.ts';

const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
/** Refused records named in an upload's answer; the count says how many there were in all. */
const MAX_REJECTIONS_ANSWERED = 100;

/** The connection an upload token names (from `authenticateUpload`). */
export type UploadConnection = NonNullable<Awaited<ReturnType<typeof repo.findConnectionByToken>>>;

export function createMobileService(deps: MobileDeps) {
  const { db, clock, log, providers } = deps;
  const { limits: settings, imports: importSettings } = deps.config.settings.get(mobileSettings);
  const rebuildDeps = { db, log, data: deps.data };
  const admitUpload = createUploadAdmission({ db, clock, settings });
  const admitImport = createImportAdmission({ db, clock, settings });
  const imports = createExportImports(deps, settings, importSettings);

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
    const sent = parseReference(input.referenceId);
    const issued = await deps.connecting.consumeSdkToken(input.token);
    if (!issued)
      throw unauthorized('the token is unknown, expired or already used; get a new one from /v2/auth/tokens');
    const { developerId } = issued;
    // A token bound to a reference id (POST /v2/auth/tokens?reference_id=) decides it; what the
    // SDK sends counts only for an unbound token (the vendor's rule, docs/wire-contract.md).
    const referenceId = issued.referenceId ?? sent;
    const uploadToken = newToken('mobileUpload', 32);
    const user = await db.transaction().execute(async (trx) => {
      await deps.integrations.requireSdkSource(developerId, provider.id, trx);
      const row = await deps.connecting.activateSdkConnection(trx, {
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
    const uploadId = newUuid();
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

  /** The upload job: platform records -> samples -> dirty days -> unified records and events. */
  async function processUpload(uploadId: string): Promise<void> {
    const upload = await repo.findUpload(db, uploadId);
    if (!upload) return;
    const user = await connectionsRepo.findConnectionById(db, upload.user_id);
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

  return {
    settings,
    importSettings,
    connect,
    authenticateUpload,
    admitUpload,
    admitImport,
    acceptUpload,
    processUpload,
    startImport: imports.startImport,
    importStatus: imports.importStatus,
    runImport: imports.runImport,
    sweepSpool: () => sweepSpool({ db, clock, log, dir: imports.importDir() }),
    settleDirtyDays: (userId: string) => settleDirtyDays(rebuildDeps, userId),
    giveUpImport: imports.giveUpImport,
  };
}

export type MobileService = ReturnType<typeof createMobileService>;
export type { ImportView } from './imports.ts';
