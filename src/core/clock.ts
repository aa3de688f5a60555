/** Time as the service sees it; tests inject a fixed or moving clock. */
export type Clock = { now(): Date };
export const systemClock: Clock = { now: () => new Date() };
