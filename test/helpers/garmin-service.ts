// A test service listening on a real port beside a Garmin fake it is configured for: the setup the
// Garmin connector tests share (notifications reach the service over HTTP, as Garmin's would).
import { providerEnv } from '../fakes/fake-server.ts';
import { type GarminFake, startGarminFake } from '../fakes/garmin.ts';
import { startTestService, type TestService } from './app.ts';

/**
 * The fake (an account one hour east of UTC) and the service, its request budget lifted far
 * above Garmin's 100 a minute and its retries quick, so the tests wait on states, not on limits.
 */
export async function startServiceWithGarminFake(): Promise<{ fake: GarminFake; service: TestService }> {
  const fake = await startGarminFake({ offsetMinutes: 60 });
  const service = await startTestService({
    env: {
      ...providerEnv('GARMIN', fake),
      GARMIN_REQUEST_BUDGET: '100000/60',
      PROVIDER_HTTP_RETRY_BASE_MS: '20',
    },
  });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  return { fake, service };
}
