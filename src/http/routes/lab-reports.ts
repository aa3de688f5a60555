// Lab reports: upload a PDF or photo of a report (or a DXA scan) as multipart form data, then
// list, read, reprocess, delete sessions and see their deliveries and files. The upload is served
// at the vendor's new-stack path `POST /v2/reports` and at the two it keeps, `/v2/lab-reports` and
// `/v2/reports/upload`; every operation takes `X-Terra-Version` (api-version.ts) and answers with
// the version that served it. Thin: the lab-reports service decides. Multipart is parsed only
// inside this scope, with the 20 MB limit.
import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { AppError, invalidParameter } from '../../core/errors.ts';
import type { AppContext } from '../../features/context.ts';
import {
  Deliveries,
  FileQuery,
  Files,
  ListQuery,
  ReprocessResponse,
  Session,
  SessionList,
  SessionParams,
  UploadQuery,
  UploadResponse,
  VersionHeaders,
  VersionPin,
  VersionPinBody,
} from '../../features/lab-reports/schemas.ts';
import { VERSION_HEADER } from '../../features/lab-reports/api-version.ts';
import { MAX_FILE_BYTES } from '../../features/lab-reports/service.ts';
import type { App } from '../app-type.ts';

const tags = ['lab-reports'];
const config = { auth: 'developer' as const };
const plainJson = () => (data: unknown) => JSON.stringify(data);
const Nothing = Type.Null({ description: 'No body' });

type Upload = { bytes: Buffer; fileName: string | null; referenceId: string | undefined };

/** The one `file` part (and an optional `reference_id` field) of a multipart upload. */
async function readUpload(request: FastifyRequest): Promise<Upload> {
  if (!request.isMultipart()) throw invalidParameter('body', 'expected multipart/form-data with a file part');
  let upload: Upload | undefined;
  let referenceId: string | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const bytes = await part.toBuffer();
        // `file` (the current documents) or `files` (the older upload's field name).
        if (part.fieldname !== 'file' && part.fieldname !== 'files') continue;
        if (upload) throw invalidParameter('file', 'send one file per upload');
        upload = {
          bytes,
          fileName: part.filename ? part.filename.slice(0, 200) : null,
          referenceId: undefined,
        };
      } else if (part.fieldname === 'reference_id' && typeof part.value === 'string') {
        referenceId = part.value;
      }
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      throw new AppError(
        'payload_too_large',
        `file: larger than the ${MAX_FILE_BYTES / 1024 / 1024} MB limit`,
      );
    if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT')
      throw invalidParameter('body', 'expected one file part and at most a reference_id field');
    throw invalidParameter('body', `malformed multipart body (${(error as Error).message})`);
  }
  if (!upload) throw new AppError('bad_request', 'missing file: required multipart file part named "file"');
  return { ...upload, referenceId };
}

/** The paths an upload is served at: the new stack's, then the two the vendor keeps running. */
const UPLOAD_PATHS = [
  { url: '/v2/reports', summary: 'Upload a lab report or DXA scan (the new stack’s path)' },
  {
    url: '/v2/lab-reports',
    summary: 'Upload a lab report or DXA scan (kept: same operation as POST /v2/reports)',
  },
  {
    url: '/v2/reports/upload',
    summary: 'Upload a lab report or DXA scan (older path, kept: same operation)',
  },
] as const;

export async function registerLabReportRoutes(app: App, ctx: AppContext) {
  const reports = ctx.labReports;

  /** The version serving the request (400 naming X-Terra-Version when malformed), told in the answer. */
  const served = async (request: FastifyRequest, reply: FastifyReply) => {
    const version = await reports.versionFor(request.developer, request.headers[VERSION_HEADER]);
    reply.header('X-Terra-Version', version);
    return version;
  };

  await app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: MAX_FILE_BYTES, files: 2, fields: 4, parts: 6, fieldSize: 1024 },
    });

    for (const path of UPLOAD_PATHS)
      scope.post(
        path.url,
        {
          config,
          serializerCompiler: plainJson,
          schema: {
            tags,
            summary: `${path.summary} (PDF, PNG, JPEG, GIF or WebP; max 20 MB)`,
            description:
              'Follows the vendor’s lab-reports migration guide and scans page (docs/wire-contract.md#lab-reports). ' +
              'multipart/form-data with a `file` part (or `files`; one per upload) and optionally a `reference_id` field or query parameter. ' +
              'The file type is told by its content, and so is the report type: under API versions from 2026-11-19 a DXA ' +
              'body-composition or bone-density scan is read by body region (report_type dexa), anything else as a lab report. ' +
              'Processing runs in the background; the session id arrives ' +
              'with the lab_report webhook event or from GET /v2/lab-reports?upload_id=…. ' +
              `At most ${reports.settings.uploadRate.limit} uploads per ${reports.settings.uploadRate.windowSeconds} s per developer: 429 with Retry-After past it.`,
            'x-upload': {
              file: 'The report: PDF, PNG, JPEG, GIF or WebP',
              example: 'report.pdf',
              fields: { reference_id: 'Your own id for the person (or give it as a query parameter)' },
            },
            headers: VersionHeaders,
            querystring: UploadQuery,
            response: { 202: UploadResponse },
          } as object,
          // The developer's upload rate is checked before a byte of the file is read.
          onRequest: async (request) => reports.admitUpload(request.developer.id),
        },
        async (request, reply) => {
          // A malformed version header is refused before the body is read.
          const version = await served(request, reply);
          const upload = await readUpload(request);
          const query = request.query as { reference_id?: string };
          const accepted = await reports.upload(
            request.developer,
            { bytes: upload.bytes, fileName: upload.fileName },
            query.reference_id ?? upload.referenceId,
            version,
          );
          return reply.code(202).send(accepted);
        },
      );
  });

  app.get(
    '/v2/lab-reports',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Your lab report sessions, newest first',
        description: 'report_type filters by what the read found: lab or dexa (anything else: 400).',
        headers: VersionHeaders,
        querystring: ListQuery,
        response: { 200: SessionList },
      },
    },
    async (request, reply) => {
      await served(request, reply);
      return reports.list(request.developer, request.query);
    },
  );

  app.get(
    '/v2/lab-reports/:session_id',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'A lab report session with its results, panels and status history',
        headers: VersionHeaders,
        params: SessionParams,
        response: { 200: Session },
      },
    },
    async (request, reply) => {
      await served(request, reply);
      return reports.get(request.developer, request.params.session_id);
    },
  );

  app.delete(
    '/v2/lab-reports/:session_id',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Delete a lab report session (its results and the uploaded file go with it)',
        headers: VersionHeaders,
        params: SessionParams,
        response: { 204: Nothing },
      },
    },
    async (request, reply) => {
      await served(request, reply);
      await reports.remove(request.developer, request.params.session_id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v2/lab-reports/:session_id/reprocess',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Read the session’s stored file again with the current reader',
        description:
          'Runs in the background like an upload: a new lab_report.completed (or lab_report.failed) event follows, ' +
          'and the session keeps its previous results until the new read is stored. Asking again while the re-read ' +
          'is pending changes nothing. 409 while the upload is still being processed; 410 when the file is no longer stored.',
        headers: VersionHeaders,
        params: SessionParams,
        response: { 202: ReprocessResponse },
      },
    },
    async (request, reply) => {
      await served(request, reply);
      return reply.code(202).send(await reports.reprocess(request.developer, request.params.session_id));
    },
  );

  app.get(
    '/v2/lab-reports/:session_id/deliveries',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Where the session’s webhook event stands',
        headers: VersionHeaders,
        params: SessionParams,
        response: { 200: Deliveries },
      },
    },
    async (request, reply) => {
      await served(request, reply);
      return reports.deliveries(request.developer, request.params.session_id);
    },
  );

  app.get(
    '/v2/lab-reports/:session_id/files',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'The uploaded file, with a download link valid for 15 minutes',
        headers: VersionHeaders,
        params: SessionParams,
        response: { 200: Files },
      },
    },
    async (request, reply) => {
      await served(request, reply);
      return reports.files(request.developer, request.params.session_id);
    },
  );

  app.get(
    '/v2/reports/api-version',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Your pinned lab-reports API version (what requests without X-Terra-Version get)',
        response: { 200: VersionPin },
      },
    },
    async (request) => reports.versionPin(request.developer),
  );

  app.put(
    '/v2/reports/api-version',
    {
      config,
      serializerCompiler: plainJson,
      schema: {
        tags,
        summary: 'Pin the lab-reports API version for requests without X-Terra-Version (null unpins)',
        description:
          'Tributary’s path for the pin the vendor sets in its Admin API and CLI (docs/vendor-spec-deviations.md#lab-reports). ' +
          'A date pins the newest version on or before it (earlier than 2026-03-24: 2026-03-24). Malformed: 400 naming api_version.',
        body: VersionPinBody,
        response: { 200: VersionPin },
      },
    },
    async (request) => reports.pinVersion(request.developer, request.body.api_version),
  );

  // The download link `/files` hands out: no credentials, the sealed token is the authority.
  app.get(
    '/v2/lab-reports/files/download',
    {
      config: { auth: 'none' as const },
      schema: {
        tags,
        summary: 'Download an uploaded lab report file (link from /files)',
        querystring: FileQuery,
        response: { 200: Type.Unknown({ description: 'The file' }) },
      },
    },
    async (request, reply) => {
      const file = await reports.download(request.query.token);
      return reply
        .header('content-type', file.mediaType)
        .header('content-disposition', `attachment; filename="${file.filename.replace(/[^\w.-]/g, '_')}"`)
        .header('cache-control', 'private, no-store')
        .send(file.bytes);
    },
  );
}
