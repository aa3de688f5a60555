/**
 * Every queue of the service by name, with the payload its jobs carry. It starts empty: the module
 * that owns a queue adds it next to the queue's name constant, by module augmentation
 * (`declare module '…/jobs/queues.ts' { interface QueuePayloads { [MY_QUEUE]: MyJob } }`), so the
 * queue layer names no feature and `jobs.send(name, payload)` is checked against the owner's type.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by augmentation
export interface QueuePayloads {}

export type QueueName = keyof QueuePayloads & string;

/** Recurring jobs carry no data. */
export type NoPayload = Record<string, never>;
