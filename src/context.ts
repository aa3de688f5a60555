import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { createSecretBox, type SecretBox } from './crypto/secret-box.ts';
import type { JobQueue } from './jobs/queue.ts';
import { createDevelopersService, type DevelopersService } from './modules/developers/service.ts';
import type { Db, Store } from './store/db.ts';

/** Time as the service sees it; tests inject a fixed or moving clock. */
export type Clock = { now(): Date };
export const systemClock: Clock = { now: () => new Date() };

/** Everything a module needs, built once per process (or per test app). */
export type AppContext = {
  config: Config;
  store: Store;
  db: Db;
  jobs: JobQueue;
  log: Logger;
  clock: Clock;
  secretBox: SecretBox;
  developers: DevelopersService;
};

export function createContext(deps: {
  config: Config;
  store: Store;
  jobs: JobQueue;
  log: Logger;
  clock?: Clock;
}): AppContext {
  const secretBox = createSecretBox(deps.config.encryptionKey);
  const db = deps.store.db;
  return {
    ...deps,
    db,
    clock: deps.clock ?? systemClock,
    secretBox,
    developers: createDevelopersService({ db, secretBox }),
  };
}
