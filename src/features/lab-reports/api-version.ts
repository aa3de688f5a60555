// The dated versions of the lab-reports API (the vendor's `X-Terra-Version: YYYY-MM-DD` request
// header, docs/wire-contract.md#lab-reports). A request is served by the newest version on or
// before the date it names; a date earlier than the first version gets the first. Without the
// header, the developer's pin answers, else the latest. What each version changes is ours to say
// where the vendor's documents do not (docs/vendor-spec-deviations.md).
import { invalidParameter } from '../../core/errors.ts';
import { headerText, quotedValue } from '../../core/header-text.ts';
import { isIsoDate } from '../../model/time.ts';

export const VERSION_HEADER = 'x-terra-version';

/**
 * Oldest first. `2026-03-24`: the first version of the new stack (the vendor's migration guide
 * names it as the floor); every upload is read as a lab report. `2026-11-19`: scans are told
 * apart on upload (`report_type: dexa`, results by body `region`), as the vendor's reference of
 * that date documents.
 */
export const LAB_REPORT_VERSIONS = ['2026-03-24', '2026-11-19'] as const;
export type LabReportVersion = (typeof LAB_REPORT_VERSIONS)[number];
export const LATEST_VERSION: LabReportVersion = LAB_REPORT_VERSIONS[LAB_REPORT_VERSIONS.length - 1]!;

/** Whether uploads read under this version are classified (a DXA scan read as one). */
export const readsScans = (version: LabReportVersion) => version >= '2026-11-19';

/** The version serving a date: the newest on or before it; the first for earlier dates. */
export function versionOn(date: string): LabReportVersion {
  let chosen: LabReportVersion = LAB_REPORT_VERSIONS[0];
  for (const version of LAB_REPORT_VERSIONS) if (version <= date) chosen = version;
  return chosen;
}

/** A `YYYY-MM-DD` the caller gave (header or pin) checked; `name` is what a 400 names. */
export function parseVersionDate(name: string, value: string): LabReportVersion {
  const text = value.trim();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || !isIsoDate(text))
    throw invalidParameter(
      name,
      `expected a date as YYYY-MM-DD (for example ${LATEST_VERSION}), got ${quotedValue(value)}`,
    );
  return versionOn(text);
}

/** The version a request is served by: its header when given, else the pin, else the latest. */
export function resolveVersion(
  header: string | string[] | undefined,
  pin: LabReportVersion | null,
): LabReportVersion {
  if (Array.isArray(header)) {
    if (header.length !== 1) throw invalidParameter('X-Terra-Version', 'send the header once');
    header = header[0];
  }
  if (header !== undefined) return parseVersionDate('X-Terra-Version', headerText(header));
  return pin ?? LATEST_VERSION;
}
