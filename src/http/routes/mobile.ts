// Mobile sources: SDK connect and upload (authenticated by the single-use token, then by the
// connection's upload token), and export imports (developer credentials). Thin: the mobile
// service decides.
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../features/context.ts';
import type { UploadConnection } from '../../features/mobile/service.ts';
import { AppError, badRequest, notFound } from '../../core/errors.ts';
import type { App } from '../app-type.ts';
import {
  ImportParams,
  ImportQuery,
  ImportStatus,
  ImportStatusParams,
  SdkConnectBody,
  SdkConnectResponse,
  SdkUploadAccepted,
  SdkUploadBody,
} from '../../features/mobile/schemas.ts';

const tags = ['mobile'];
const EXPORT_TYPES = ['application/zip', 'application/xml', 'text/xml', 'application/octet-stream'];

export async function registerMobileRoutes(app: App, ctx: AppContext) {
  const mobile = ctx.mobile;
  // The connection each upload request authenticated as (set in its onRequest hook).
  const uploaders = new WeakMap<FastifyRequest, UploadConnection>();
  const uploadLimit = mobile.settings.uploadMaxBytes;

  app.post(
    '/v2/sdk/connect',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: 'Connect an on-device source with a token from /v2/auth/generateAuthToken',
        description:
          'Creates the user and the connection (auth event to the webhook). The token works once; ' +
          'the answer carries the upload token the app sends to /v2/sdk/upload.',
        body: SdkConnectBody,
        response: { 200: SdkConnectResponse },
      },
    },
    async (request) => {
      const connected = await mobile.connect({
        token: request.body.token,
        resource: request.body.resource,
        referenceId: request.body.reference_id,
        device: request.body.device,
      });
      return { status: 'success' as const, user_id: connected.userId, upload_token: connected.uploadToken };
    },
  );

  app.post(
    '/v2/sdk/upload',
    {
      config: { auth: 'none' },
      bodyLimit: uploadLimit,
      schema: {
        tags,
        summary: 'Upload a batch of on-device records (Authorization: Bearer <upload_token>)',
        description:
          `Idempotent by record id; deletions by id. Bodies over ${uploadLimit} bytes: 413. Answered at once; normalized by a job. ` +
          `Per connection at most ${mobile.settings.uploadRate.limit} uploads per ${mobile.settings.uploadRate.windowSeconds} s and ` +
          `${mobile.settings.uploadPendingMax} waiting for normalization: 429 with Retry-After past either.`,
        body: SdkUploadBody,
        security: [{ uploadToken: [] }],
        response: { 202: SdkUploadAccepted },
      },
      // The token, the size and the connection's limits are checked before a byte of the body is read.
      onRequest: async (request) => {
        const connection = await mobile.authenticateUpload(request.headers.authorization);
        uploaders.set(request, connection);
        const length = Number(request.headers['content-length'] ?? 0);
        if (length > uploadLimit)
          throw new AppError(
            'payload_too_large',
            `the upload is ${length} bytes; send batches of at most ${uploadLimit} bytes`,
          );
        await mobile.admitUpload(connection);
      },
    },
    async (request, reply) => {
      const accepted = await mobile.acceptUpload(uploaders.get(request)!, request.body);
      return reply.code(202).send({ status: 'accepted' as const, ...accepted });
    },
  );

  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    // The export is streamed to disk as it arrives, never parsed here.
    scope.addContentTypeParser(
      EXPORT_TYPES,
      { bodyLimit: mobile.settings.importMaxBytes },
      (_request, payload, done) => done(null, payload),
    );
    await scope.register(multipart, { limits: { fileSize: mobile.settings.importMaxBytes, files: 1 } });

    scope.post(
      '/v2/import/:format',
      {
        config: { auth: 'developer', streamedBody: true },
        bodyLimit: mobile.settings.importMaxBytes,
        schema: {
          tags,
          summary: 'Import an Apple Health export (export.zip or export.xml) for a user',
          description:
            'Body: the file (content-type application/zip or application/xml), or multipart/form-data with a ' +
            '`file` part. Give user_id, or reference_id (a user of the platform is created when none has it). ' +
            'Answers 202 at once; follow progress at GET /v2/import/{import_id}. ' +
            `At most ${mobile.settings.importRate.limit} imports per ${mobile.settings.importRate.windowSeconds} s per developer: 429 with Retry-After past it.`,
          'x-upload': { file: 'The export: export.zip or export.xml', example: 'export.zip' },
          params: ImportParams,
          querystring: ImportQuery,
          response: { 202: ImportStatus },
        },
        // The developer's import rate is checked before a byte of the export is read.
        onRequest: async (request) => mobile.admitImport(request.developer.id),
      },
      async (request, reply) => {
        let body: Readable;
        if (request.isMultipart()) {
          const part = await request.file();
          if (!part || part.fieldname !== 'file')
            throw badRequest('invalid body: a multipart part named "file" is required');
          body = part.file;
        } else if (request.body && typeof (request.body as Readable).pipe === 'function') {
          body = request.body as Readable;
        } else {
          throw new AppError(
            'unsupported_media_type',
            `send the export as ${EXPORT_TYPES.slice(0, 2).join(' or ')}, or multipart/form-data`,
          );
        }
        const started = await mobile.startImport({
          developerId: request.developer.id,
          format: request.params.format,
          userId: request.query.user_id,
          referenceId: request.query.reference_id,
          body,
        });
        return reply.code(202).send(started);
      },
    );
  });

  app.get(
    '/v2/import/:import_id',
    {
      config: { auth: 'developer' },
      schema: {
        tags,
        summary: 'Progress of an export import',
        params: ImportStatusParams,
        response: { 200: ImportStatus },
      },
    },
    async (request) => {
      const found = await mobile.importStatus(request.developer.id, request.params.import_id);
      if (!found) throw notFound(`no import with import_id ${request.params.import_id}`);
      return found;
    },
  );
}
