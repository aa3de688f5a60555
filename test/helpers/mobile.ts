import assert from 'node:assert/strict';
import type { App } from '../../src/http/app-type.ts';
import { NORMALIZE_UPLOAD_QUEUE } from '../../src/features/mobile/ports.ts';
import type { AppContext } from '../../src/runtime/context.ts';
import type { TestDeveloper } from './app.ts';
import { waitForJobsSettled } from './jobs.ts';

/** A single-use SDK token, as the developer's backend gets it. */
export async function sdkToken(app: App, developer: TestDeveloper): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/v2/auth/generateAuthToken',
    headers: developer.headers,
  });
  assert.equal(response.statusCode, 200, response.body);
  return (response.json() as { token: string }).token;
}

export async function sdkConnect(
  app: App,
  developer: TestDeveloper,
  resource: string,
  referenceId?: string,
): Promise<{ userId: string; uploadToken: string }> {
  const token = await sdkToken(app, developer);
  const response = await app.inject({
    method: 'POST',
    url: '/v2/sdk/connect',
    payload: { token, resource, ...(referenceId ? { reference_id: referenceId } : {}) },
  });
  assert.equal(response.statusCode, 200, response.body);
  const body = response.json() as { user_id: string; upload_token: string };
  return { userId: body.user_id, uploadToken: body.upload_token };
}

/** Uploads a batch and waits until its normalization job has run. */
export async function uploadAndSettle(
  ctx: AppContext,
  app: App,
  uploadToken: string,
  payload: unknown,
): Promise<{ upload_id: string; items: number }> {
  const response = await app.inject({
    method: 'POST',
    url: '/v2/sdk/upload',
    headers: { authorization: `Bearer ${uploadToken}` },
    payload: payload as object,
  });
  assert.equal(response.statusCode, 202, response.body);
  const body = response.json() as { upload_id: string; items: number };
  await waitForJobsSettled(ctx, NORMALIZE_UPLOAD_QUEUE, { data: { uploadId: body.upload_id } });
  const failed = await ctx.jobs
    .boss()
    .findJobs(NORMALIZE_UPLOAD_QUEUE, { data: { uploadId: body.upload_id } });
  assert.ok(
    failed.every((job) => job.state === 'completed'),
    JSON.stringify(failed.map((job) => [job.state, job.output])),
  );
  return body;
}
