// What a report says about itself: its date (and time), the collection date, the lab, and the
// patient's sex and age, read from labelled text ("Collected: 03/14/2025", "Sex: F", "Age: 45").
// Only what is printed: an age is computed from a printed birth date and collection date, never
// assumed; anything not found stays absent.
import type { Row } from './rows.ts';

export type ReportMetadata = {
  reportDate?: string;
  reportTime?: string;
  collectionDate?: string;
  collectionTime?: string;
  labName?: string;
  patientSex?: 'female' | 'male';
  patientAge?: number;
  locale?: string;
};

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DATE_TEXT =
  '(\\d{4}-\\d{2}-\\d{2}|\\d{1,2}[/.]\\d{1,2}[/.]\\d{2,4}|\\d{1,2}[ -][A-Za-z]{3,9}[ -]\\d{4}|[A-Za-z]{3,9} \\d{1,2},? \\d{4})';
const TIME_TEXT = '(?:\\s+(?:at\\s+)?(\\d{1,2}:\\d{2})\\s*(am|pm|AM|PM)?)?';

const pad = (value: number) => String(value).padStart(2, '0');

/** A printed date as YYYY-MM-DD; `dayFirst` for reports in day/month order (en-GB). */
export function readDate(text: string, dayFirst: boolean): string | undefined {
  let match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  let year: number, month: number, day: number;
  if (match) [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  else if ((match = /^(\d{1,2})[/.](\d{1,2})[/.](\d{2,4})$/.exec(text))) {
    const [first, second] = [Number(match[1]), Number(match[2])];
    year = Number(match[3]!.length === 2 ? `20${match[3]}` : match[3]);
    [month, day] = dayFirst || first > 12 ? [second, first] : [first, second];
  } else if ((match = /^(\d{1,2})[ -]([A-Za-z]{3,9})[ -](\d{4})$/.exec(text))) {
    [day, month, year] = [
      Number(match[1]),
      MONTHS.indexOf(match[2]!.slice(0, 3).toLowerCase()) + 1,
      Number(match[3]),
    ];
  } else if ((match = /^([A-Za-z]{3,9}) (\d{1,2}),? (\d{4})$/.exec(text))) {
    [month, day, year] = [
      MONTHS.indexOf(match[1]!.slice(0, 3).toLowerCase()) + 1,
      Number(match[2]),
      Number(match[3]),
    ];
  } else return undefined;
  if (month < 1 || month > 12 || day < 1 || day > 31 || year < 1900 || year > 2200) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCDate() !== day) return undefined;
  return `${year}-${pad(month)}-${pad(day)}`;
}

function readTime(clock: string | undefined, meridiem: string | undefined): string | undefined {
  if (!clock) return undefined;
  const [hour, minutes] = clock.split(':').map(Number) as [number, number];
  let hours = hour;
  if (meridiem) {
    const pm = meridiem.toLowerCase() === 'pm';
    if (hours === 12) hours = pm ? 12 : 0;
    else if (pm) hours += 12;
  }
  return hours < 24 && minutes < 60 ? `${pad(hours)}:${pad(minutes)}` : undefined;
}

const labelled = (labels: string) => new RegExp(`\\b(?:${labels})\\s*[:#]?\\s*${DATE_TEXT}${TIME_TEXT}`, 'i');
const REPORTED = labelled(
  'date reported|reported|report date|report issued|issued|date of report|resulted|final report',
);
const COLLECTED = labelled(
  'date collected|collected|collection date|collection|specimen collected|date of collection|drawn|sample date',
);
const BORN = labelled('dob|date of birth|birth date|born');
const SEX = /\b(?:sex|gender)\s*[:/]?\s*(female|male|f|m)\b/i;
const AGE = /\bage\s*[:/]?\s*(\d{1,3})\s*(?:y|yrs?|years?)?\b/i;
const LAB_LABEL =
  /\b(?:laboratory|lab|performing lab|performed at)\s*:\s*([A-Z][\w&.,' -]{2,60}?)(?:\s{2,}|$)/i;
const LAB_NAME =
  /^([A-Z][\w&.' -]*\b(?:Laborator(?:y|ies)|Labs?|Diagnostics|Pathology|Clinical Lab\w*|Medical Lab\w*)\b[\w&.' -]*)$/;
/** en-GB style reports: day-first dates and British spellings. */
const BRITISH = /\b(haemoglobin|haematocrit|oestradiol|NHS|FBC|U&E|LFT|postcode)\b/i;

function yearsBetween(born: string, on: string): number {
  const [by, bm, bd] = born.split('-').map(Number) as [number, number, number];
  const [oy, om, od] = on.split('-').map(Number) as [number, number, number];
  return oy - by - (om < bm || (om === bm && od < bd) ? 1 : 0);
}

export function readMetadata(rows: Row[]): ReportMetadata {
  const text = rows.map((row) => row.text);
  const all = text.join('\n');
  // Day-first when the report reads British, or a date's first number cannot be a month.
  const dayFirst = BRITISH.test(all) || /\b(1[3-9]|2\d|3[01])\/\d{1,2}\/\d{4}\b/.test(all);
  const metadata: ReportMetadata = {};
  const first = <T>(pick: (line: string) => T | undefined) => {
    for (const line of text) {
      const found = pick(line);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const reported = first((line) => REPORTED.exec(line) ?? undefined);
  if (reported) {
    const date = readDate(reported[1]!, dayFirst);
    if (date) metadata.reportDate = date;
    const time = readTime(reported[2], reported[3]);
    if (date && time) metadata.reportTime = time;
  }
  const collected = first((line) => COLLECTED.exec(line) ?? undefined);
  if (collected) {
    const date = readDate(collected[1]!, dayFirst);
    if (date) metadata.collectionDate = date;
    const time = readTime(collected[2], collected[3]);
    if (date && time) metadata.collectionTime = time;
  }
  const sex = first((line) => SEX.exec(line)?.[1]);
  if (sex) metadata.patientSex = sex.toLowerCase().startsWith('f') ? 'female' : 'male';
  const age = first((line) => AGE.exec(line)?.[1]);
  if (age !== undefined && Number(age) <= 130) metadata.patientAge = Number(age);
  else {
    const born = first((line) => BORN.exec(line) ?? undefined);
    const bornOn = born ? readDate(born[1]!, dayFirst) : undefined;
    const on = metadata.collectionDate ?? metadata.reportDate;
    if (bornOn && on && bornOn <= on) metadata.patientAge = yearsBetween(bornOn, on);
  }
  const lab =
    first((line) => LAB_LABEL.exec(line)?.[1]?.trim()) ??
    first((line) =>
      line
        .split(/\s{2,}/)
        .map((part) => LAB_NAME.exec(part.trim())?.[1])
        .find(Boolean),
    );
  if (lab) metadata.labName = lab;
  metadata.locale = dayFirst ? 'en-GB' : 'en-US';
  return metadata;
}
