import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../features/context.ts';
import type { App } from '../app-type.ts';
import {
  ArchiveSchema,
  ErasureReceiptResponse,
  SubjectUserParams,
} from '../../features/subject-access/schemas.ts';

const tags = ['users'];
const config = { auth: 'developer' as const };

/** Data-subject requests: one user's data as an archive; the receipt of a deauthenticated user's erasure. */
export function registerSubjectAccessRoutes(app: App, ctx: AppContext) {
  app.get(
    '/v2/users/:user_id/export',
    {
      config,
      schema: {
        tags,
        summary: 'Everything stored for one user, as one ZIP archive (a data-subject access request)',
        description:
          'Streamed as it is read: the user, every stored record (NDJSON per type), the raw provider ' +
          'payloads kept, the webhook events sent about the user, and the lab reports (results and files) of ' +
          'its reference_id; manifest.json lists each file with ' +
          'its line count. See docs/data-subject-requests.md.',
        params: SubjectUserParams,
        response: {
          200: { description: 'The archive', content: { 'application/zip': { schema: ArchiveSchema } } },
        },
      },
    },
    async (request, reply) => {
      const archive = await ctx.subjectAccess.exportUser(request.developer.id, request.params.user_id);
      return (reply as FastifyReply)
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename="${archive.fileName}"`)
        .header('cache-control', 'no-store')
        .send(archive.stream);
    },
  );

  app.get(
    '/v2/users/:user_id/erasure-receipt',
    {
      config,
      schema: {
        tags,
        summary: 'What deauthenticating a user deleted: rows per table, when (kept after the user is gone)',
        description:
          'Recorded by DELETE /v2/auth/deauthenticateUser in the transaction that deletes the user. ' +
          'Holds no health data. A user that was never deauthenticated is a 404.',
        params: SubjectUserParams,
        response: { 200: ErasureReceiptResponse },
      },
    },
    async (request) => ({
      status: 'success' as const,
      receipt: await ctx.connecting.erasureReceipt(request.developer.id, request.params.user_id),
    }),
  );
}
