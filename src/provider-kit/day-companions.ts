// A day's companions: what core keeps of a day between notifications. Some providers (Garmin)
// build one record from several summary kinds of the same day (a day's summary, its epochs, stress
// and pulse ox), each notified on its own and minutes apart; a notification that brings some of
// them must be normalized with the others the day already had, or the stored record loses what
// they gave. So core keeps, per connection, unified type and day, the latest copy of each summary
// a fetch brought (one per kind and id). A fetcher does not normalize such a day itself: it yields
// the day as a page of its own (`DataPage.companions`), what it brought and how to build the day,
// and core keeps what it brought, reads the whole day back, builds it and writes the records in
// one exclusive section per connection, type and day. Two fetches of one day (two processes, or a
// job re-run beside the one still running) then never interleave: whichever writes last built its
// record from every summary either brought. One day is read at a time, never a connection's history.

/** One summary a fetch brought for a day. */
export type DaySummary = {
  /** The provider's own name of its kind (`dailies`, `pulseox`, …). */
  kind: string;
  /** Its identity among the kind's summaries (the provider's summary id): a later copy replaces it. */
  id: string;
  /**
   * When the provider delivered this copy (an upload window's end, or when a push arrived), epoch
   * ms: a copy delivered earlier than the one kept does not replace it, whichever fetch writes last.
   */
  deliveredAt: number;
  summary: unknown;
};

/** What a day's summaries make: its records, and the payload they came from (kept as raw). */
export type BuiltDay = { records: readonly unknown[]; raw?: unknown };

/** One day of a fetch whose record core builds from every summary kept of the day. */
export type CompanionDay = {
  /** The local day, `YYYY-MM-DD`. */
  day: string;
  /** What this fetch brought of the day: each replaces an earlier delivered copy of itself. */
  summaries: readonly DaySummary[];
  /**
   * Bytes of JSON the day's summaries may hold at most (what may be held in memory at once): a
   * day holding more fails the fetch with a provider error.
   */
  maxBytes: number;
  /**
   * The day from every summary it holds, by kind (those brought included). Runs inside the day's
   * exclusive section, so it only computes: no outbound call, nothing kept between calls.
   */
  build(byKind: Readonly<Record<string, readonly unknown[]>>): BuiltDay;
};
