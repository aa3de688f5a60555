// How planned workouts reach a user's provider: pushed through its connector, queued for the
// mobile SDK of an on-device source, or refused (400) when the provider takes none; deletions at
// the provider; and how a provider failure is answered (424 on the current operations, 503 on the
// older alias).
import { AppError, invalidParameter, upstreamUnavailable } from '../../core/errors.ts';
import type { PlannedWorkoutDetails } from '../../model/planned-workout.ts';
import type { DataSource } from '../../provider-kit/data-source.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { Developer } from '../developers/service.ts';
import { findConnectionForDeveloper, type ConnectionRow } from '../connections/service.ts';
import type { WorkoutsDeps } from './deps.ts';
import type { PlannedWorkoutDelivery } from './tables.ts';

type Json = Record<string, unknown>;

/** How a provider failure is answered: 424 on the current operations, 503 on the older alias. */
export type FailureStyle = 'current' | 'legacy';

/** Where a user's planned workouts go, and through which source when they are pushed. */
export type WriteTarget = {
  user: ConnectionRow;
  delivery: PlannedWorkoutDelivery;
  source: DataSource | null;
};

function providerFailure(error: ProviderDataError, style: FailureStyle): AppError {
  const headers = { 'Retry-After': String(error.retryAfterSeconds ?? 60) };
  const detail = 'the provider did not accept the change right now; retry later';
  return style === 'current'
    ? new AppError('failed_dependency', detail, { headers })
    : upstreamUnavailable(detail, { headers });
}

async function atProvider<T>(task: () => Promise<T>, style: FailureStyle): Promise<T> {
  try {
    return await task();
  } catch (error) {
    if (error instanceof ProviderDataError) throw providerFailure(error, style);
    throw error;
  }
}

export function createProviderWrites(deps: WorkoutsDeps) {
  const { db } = deps;

  /** Deletes at the provider; the ids it confirmed. A provider failure throws its ProviderDataError. */
  async function unpushAtProvider(user: ConnectionRow, providerIds: readonly string[]): Promise<Set<string>> {
    if (providerIds.length === 0) return new Set();
    const source = deps.providers.get(user.provider)?.connector?.data;
    if (!source?.deletePlannedWorkouts) return new Set();
    const outcomes = await source.deletePlannedWorkouts({
      ...deps.data.sync.contextFor(user),
      ids: providerIds,
    });
    return new Set(outcomes.filter((outcome) => outcome.deleted).map((outcome) => outcome.id));
  }

  return {
    /**
     * How planned workouts reach this user's provider: pushed through its connector, or queued for
     * the mobile SDK of an on-device source; a 400 when the provider takes none.
     */
    async route(developer: Developer, userId: string): Promise<WriteTarget> {
      const user = await findConnectionForDeveloper(db, developer.id, userId);
      if (user.status === 'pending') {
        throw invalidParameter('user_id', `user ${user.id} has not completed authentication yet`);
      }
      const provider = deps.providers.get(user.provider);
      if (provider?.declaration.writesPlannedWorkouts) {
        if (provider.declaration.authKind === 'sdk') return { user, delivery: 'queued', source: null };
        const source = provider.connector?.data;
        if (source?.writePlannedWorkouts && source.deletePlannedWorkouts) {
          const refusal = source.plannedWorkoutRefusal?.({
            id: user.id,
            providerUserId: user.provider_user_id,
            scopes: user.scopes,
          });
          if (refusal) throw invalidParameter('user_id', refusal);
          return { user, delivery: 'pushed', source };
        }
      }
      throw invalidParameter('user_id', `planned workouts cannot be written to provider ${user.provider}`);
    },

    /** Writes the bodies at the provider (when pushed); the provider's ids, null where queued. */
    async push(
      target: WriteTarget,
      bodies: readonly Json[],
      style: FailureStyle,
    ): Promise<(string | null)[]> {
      const { source } = target;
      if (target.delivery === 'queued' || !source?.writePlannedWorkouts) return bodies.map(() => null);
      const ids = await atProvider(
        () =>
          source.writePlannedWorkouts!({
            ...deps.data.sync.contextFor(target.user),
            workouts: bodies as PlannedWorkoutDetails[],
          }),
        style,
      );
      if (ids.length !== bodies.length)
        throw new Error(`provider returned ${ids.length} ids for ${bodies.length} workouts`);
      return ids;
    },

    unpushAtProvider,

    /** `unpushAtProvider`, a provider failure answered as `style` says. */
    unpush: (user: ConnectionRow, providerIds: readonly string[], style: FailureStyle) =>
      atProvider(() => unpushAtProvider(user, providerIds), style),
  };
}

export type ProviderWrites = ReturnType<typeof createProviderWrites>;
