// The shapes of a parsed report as the wire contract names them (LabReportResult, LabReportPanel),
// stored as JSON on the session and sent as they are.
export type LabResult = {
  source: {
    name?: string;
    panel?: string;
    value?: string;
    units?: string;
    flag?: string;
    reference_text?: string;
  };
  biomarker: {
    key: string | null;
    display_name?: string;
    loinc_code?: string;
    panel_id?: number;
    panel_key?: string;
    specimen?: string;
    /** A scan's result: the body region it measures (`report_type: dexa`), where a lab result has a specimen. */
    region?: string;
  };
  measurement: {
    type: 'numeric' | 'bounded' | 'qualitative' | 'text' | 'absent';
    numeric?: number;
    bounded?: { operator: 'lt' | 'gt'; value: number };
    qualitative?: { text: string; code?: string };
    text?: string;
    absent_reason?: string;
    units?: string;
    ucum_code?: string;
  };
  interpretation: {
    flag: string | null;
    flag_raw?: string;
    source: 'report' | 'computed' | 'none';
    applied_range?: { lower?: number; upper?: number };
  };
  reference_ranges?: { lower?: number; upper?: number; type?: string }[];
  /** How sure the reader is of this result, 0–1 (OCR quality, name match, value against its range). */
  confidence?: number;
  /** Below the review threshold: show it to a person before relying on it, never as certain. */
  needs_review?: boolean;
};

/** A row that looked like a result (a name and a value) but was not emitted: the printed text and why. */
export type UnmatchedRow = { page: number; text: string; reason: string };

export type LabPanel = { id: number; name: string; key: string };

/** What kind of report the file is: a clinical lab report, or a DXA scan. */
export type ReportType = 'lab' | 'dexa';

export type ParsedReport = {
  /** Absent on reports read before scans were told apart: those are lab reports. */
  reportType?: ReportType;
  results: LabResult[];
  panels: LabPanel[];
  reportDate?: string;
  reportTime?: string;
  collectionDate?: string;
  collectionTime?: string;
  labName?: string;
  patientSex?: string;
  patientAge?: number;
  locale?: string;
  pages: number;
  ocrPages: number;
  notes?: string;
  /** Rows read but not emitted as results (no dictionary match, or not a possible value). */
  unmatched?: UnmatchedRow[];
};
