// A day's companions: what a connector keeps of a day between notifications. Some providers
// (Garmin) build one record from several summary kinds of the same day (a day's summary, its
// epochs, stress and pulse ox), each notified on its own and minutes apart; a notification that
// brings some of them must be normalized with the others the day already had, or the stored
// record loses what they gave. So core keeps, per connection, unified type and day, the latest
// copy of each summary a fetch brought (one per kind and id), and hands the fetcher a store of
// them (`TypeFetchArgs.dayCompanions`): the fetcher keeps what it brought for a day and gets the
// whole day back, which it normalizes. One day is read at a time, never a connection's history.

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

/** The days of one connection and unified type whose summaries are kept between fetches. */
export type DayCompanions = {
  /**
   * Keeps these summaries of `day` (`YYYY-MM-DD`), each replacing an earlier delivered copy of
   * itself, and returns every summary the day now holds, by kind (those it brought included).
   * Throws DayCompanionsTooLarge when the day holds more than `maxBytes` of JSON (what the caller
   * may hold in memory at once). With no summaries, it reads the day.
   */
  keepAndRead(
    day: string,
    summaries: readonly DaySummary[],
    maxBytes: number,
  ): Promise<Record<string, unknown[]>>;
};

/** A day whose kept summaries are more than the reader may hold. */
export class DayCompanionsTooLarge extends Error {
  override name = 'DayCompanionsTooLarge';
}
