// Provenance: every merged value can be traced to a stored record. A merged record carries one
// compact `provenance` object: the records it drew on (`sources`, each naming its connection,
// provider, device and identity key), the rule that shaped it, which source leads, which fields
// came from which sources and by which rule, and, for sample arrays gathered from several sources,
// the source of each sample by index (docs/merge.md#provenance).
import type { Source } from './sources.ts';

/** The rules, named on the wire. */
export const RULES = {
  /** Cumulative values: the sum of time slices, each from the best source covering it. */
  slices: 'slices',
  /** The best-ranked record (lead of a session, representative of a day). */
  priority: 'priority',
  /** A field from the best source that has it, by that field's family order. */
  bestForField: 'best_for_field',
  /** Every source's points kept, in time order. */
  allPoints: 'all_points',
} as const;
export type Rule = (typeof RULES)[keyof typeof RULES];

export type ProvenanceSource = {
  connection_id: string;
  provider: string;
  device_kind: string;
  /** The device the record names (`device_data.name`), when it names one. */
  device: string | null;
  /** The stored record's identity key within its connection. */
  record: string;
};

export type FieldProvenance = { rule: Rule; sources: number[] };

export type Provenance = {
  rule: Rule;
  /** Index into `sources` of the record that leads (the others only gave what `fields` says). */
  lead: number;
  sources: ProvenanceSource[];
  /** Records of the same session or day that lost; kept so a developer can show them. */
  alternatives: number[];
  fields: Record<string, FieldProvenance>;
  /** Sample arrays gathered from several sources: the source index of each sample, in order. */
  samples: Record<string, number[]>;
};

/** A stored record as the merge sees it. */
export type SourcedRecord = {
  source: Source;
  key: string;
  record: Record<string, unknown>;
};

/** Builds one record's provenance, adding each source once. */
export class ProvenanceBuilder {
  private readonly indexes = new Map<SourcedRecord, number>();
  private readonly sources: ProvenanceSource[] = [];
  private readonly fields: Record<string, FieldProvenance> = {};
  private readonly samples: Record<string, number[]> = {};

  private readonly all: readonly SourcedRecord[];

  constructor(all: readonly SourcedRecord[]) {
    this.all = all;
    // Every record that took part is listed, in a fixed order, so that indexes do not depend on
    // which fields happened to be asked for first.
    for (const sourced of all) this.indexOf(sourced);
  }

  indexOf(sourced: SourcedRecord): number {
    const known = this.indexes.get(sourced);
    if (known !== undefined) return known;
    const device = (sourced.record['device_data'] as { name?: unknown } | null | undefined)?.name;
    this.sources.push({
      connection_id: sourced.source.connectionId,
      provider: sourced.source.provider,
      device_kind: sourced.source.deviceKind,
      device: typeof device === 'string' ? device : null,
      record: sourced.key,
    });
    this.indexes.set(sourced, this.sources.length - 1);
    return this.sources.length - 1;
  }

  field(path: string, rule: Rule, from: readonly SourcedRecord[]): void {
    const sources = [...new Set(from.map((sourced) => this.indexOf(sourced)))].sort((a, b) => a - b);
    if (sources.length > 0) this.fields[path] = { rule, sources };
  }

  sampleSources(path: string, from: readonly SourcedRecord[]): void {
    if (from.length > 0) this.samples[path] = from.map((sourced) => this.indexOf(sourced));
  }

  build(rule: Rule, lead: SourcedRecord): Provenance {
    const leadIndex = this.indexOf(lead);
    return {
      rule,
      lead: leadIndex,
      sources: this.sources,
      alternatives: this.all.map((sourced) => this.indexOf(sourced)).filter((index) => index !== leadIndex),
      fields: this.fields,
      samples: this.samples,
    };
  }
}
