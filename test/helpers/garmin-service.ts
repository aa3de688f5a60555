// A test service listening on a real port beside a Garmin fake it is configured for: the setup the
// Garmin connector tests share (notifications reach the service over HTTP, as Garmin's would).
import { sql } from 'kysely';
import { mergeSamples } from '../../src/model/record-text.ts';
import type { Db } from '../../src/store/db.ts';
import { providerEnv } from '../fakes/fake-server.ts';
import { isoDay } from '../fakes/garmin-data.ts';
import { type GarminFake, startGarminFake } from '../fakes/garmin.ts';
import { startTestService, type TestService } from './app.ts';

/** The fake's credentials, its request budget lifted far above Garmin's 100 a minute, quick retries. */
const garminEnv = (fake: GarminFake) => ({
  ...providerEnv('GARMIN', fake),
  GARMIN_REQUEST_BUDGET: '100000/60',
  PROVIDER_HTTP_RETRY_BASE_MS: '20',
});

/**
 * The fake (an account one hour east of UTC) and the service, its request budget lifted far
 * above Garmin's 100 a minute and its retries quick, so the tests wait on states, not on limits.
 */
export async function startServiceWithGarminFake(): Promise<{ fake: GarminFake; service: TestService }> {
  const fake = await startGarminFake({ offsetMinutes: 60 });
  const service = await startTestService({ env: garminEnv(fake) });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  return { fake, service };
}

/**
 * A second process of `service`'s deployment (its database and key, the same fake), without
 * queue workers of its own: the test runs its jobs itself. It closes before `service` does.
 */
export function startSecondGarminProcess(service: TestService, fake: GarminFake): Promise<TestService> {
  return startTestService({
    env: { ...garminEnv(fake), ENCRYPTION_KEY: service.config.encryptionKey.toString('hex') },
    ...(service.database ? { database: service.database } : {}),
    work: false,
  });
}

/** What the Garmin tests read of a stored daily record. */
export type StoredGarminDaily = {
  distance_data?: { steps?: number | null; detailed?: { step_samples?: unknown[] } };
  oxygen_data?: { saturation_samples?: unknown[] } | null;
  stress_data?: { detailed?: { stress_samples?: unknown[] } };
};

/** The stored daily record of a user on the fake's day number `day`, samples merged back in. */
export async function storedGarminDaily(
  db: Db,
  userId: string,
  day: number,
): Promise<StoredGarminDaily | null> {
  const row = await sql<{ summary: string; samples: string | null; sample_splices: number[] | null }>`
    SELECT summary::text AS summary, samples::text AS samples, sample_splices
    FROM data_records
    WHERE user_id = ${userId} AND type = 'daily' AND anchor_day = ${isoDay(day)}::date`
    .execute(db)
    .then((result) => result.rows[0]);
  return row
    ? (JSON.parse(mergeSamples(row.summary, row.samples, row.sample_splices)) as StoredGarminDaily)
    : null;
}
