// The connectors' notification queues: data refetches and account changes apart, the refetches of
// one provider account grouped, and what their jobs carry. The worker defines them
// (runtime/workers/connectors.ts); notifications.ts sends to them and handles their jobs.
import type { ProviderNotification } from '../../provider-kit/api.ts';
import type { PendingKey } from './intake.ts';

export const NOTIFICATION_QUEUE = 'connectors.notification';
/**
 * Notifications about an account itself (access withdrawn, permissions changed) have a queue and
 * workers of their own: they decide whether Tributary may call the provider at all, so they must
 * not wait behind the data refetches a large backfill queues for the same account (dozens, each
 * fetching days of data under the provider's request budget).
 */
export const ACCOUNT_NOTIFICATION_QUEUE = 'connectors.account-notification';
export type NotificationQueue = typeof NOTIFICATION_QUEUE | typeof ACCOUNT_NOTIFICATION_QUEUE;

/**
 * The group of a signed notification's data refetch: its provider account. A signed notification
 * is one job (nothing folds them), so an account's burst is as many jobs, each possibly a long
 * fetch; the queue's workers run at most REFETCHES_PER_ACCOUNT of one group at a time, and skip
 * that group's other jobs for the next ones, so the other accounts' refetches do not wait behind
 * the burst. Account changes (the other queue) stay ungrouped: one quick question each.
 */
export const refetchGroup = (providerId: string, providerUserId: string) => ({
  id: `${providerId}:${providerUserId}`,
});
/**
 * Refetches of one provider account running at once in one worker process (pg-boss's
 * `localGroupConcurrency`, so per process, not across the deployment: N processes run up to N).
 */
export const REFETCHES_PER_ACCOUNT = 1;

export type Actionable = Exclude<ProviderNotification, { kind: 'ignored' }>;
/** A signed notification to act on, or the key of an unsigned account's pending refetch. */
export type NotificationJob =
  | { provider: string; notification: Actionable }
  | { provider: string; pending: Omit<PendingKey, 'provider'> };

declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [NOTIFICATION_QUEUE]: NotificationJob;
    [ACCOUNT_NOTIFICATION_QUEUE]: NotificationJob;
  }
}
