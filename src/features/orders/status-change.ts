import type { HistorySource } from './tables.ts';
import type { StatusEvent } from './domain/statuses.ts';

/** One status event to apply to an order or one of its items (lifecycle.ts applies it). */
export type StatusChange = {
  orderId: string;
  /** Scopes the lookup to one developer (simulate); timers and kit activation act for the owner. */
  developerId?: string;
  event: string;
  orderItemId?: string;
  source: HistorySource;
  /** Timers: apply only while the target is still at the version the step was planned for. */
  expectVersion?: number;
};

export type ChangeOutcome =
  { applied: true; orderId: string; event: StatusEvent } | { applied: false; reason: 'stale' };
