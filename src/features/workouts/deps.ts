// What the workouts feature is built from (the composition root passes it to createWorkoutsService).
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { ProviderCatalog } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import type { DataService } from '../data/service.ts';

export type WorkoutsDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  providers: ProviderCatalog;
  data: Pick<DataService, 'sync' | 'plannedWorkouts'>;
};
