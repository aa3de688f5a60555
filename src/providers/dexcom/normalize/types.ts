// Minimal types for the Dexcom API v3 documents the normalizers read (developer.dexcom.com,
// dexcomv3 operations egvs / devices / events). v3 answers `{recordType, recordVersion, userId,
// records[]}`; a kind's payload is the `records` of every window fetched. The legacy v2 EGV
// shape (`{unit, rateUnit, egvs[]}`, records without ids or units) is accepted too: its records
// are a subset of v3's.

export type DexcomTrend =
  | 'none'
  | 'unknown'
  | 'doubleUp'
  | 'singleUp'
  | 'fortyFiveUp'
  | 'flat'
  | 'fortyFiveDown'
  | 'singleDown'
  | 'doubleDown'
  | 'notComputable'
  | 'rateOutOfRange';

/**
 * One estimated glucose value. `systemTime` is UTC by the device clock and `displayTime` the
 * time shown to the user; both carry an offset only when recorded by a phone app.
 */
export type DexcomEgv = {
  recordId?: string;
  systemTime: string;
  displayTime: string;
  transmitterId?: string | null;
  transmitterTicks?: number;
  value: number | null;
  /** `high`/`low`: outside the sensor's reporting range. */
  status?: 'unknown' | 'high' | 'low' | 'ok' | null;
  trend?: DexcomTrend | null;
  trendRate?: number | null;
  unit?: 'unknown' | 'mg/dL' | 'mmol/L';
  rateUnit?: string;
  displayDevice?: string;
  transmitterGeneration?: string;
  /** v2 only. */
  realtimeValue?: number | null;
  smoothedValue?: number | null;
};

/** A device record (`/v3/users/self/devices`). */
export type DexcomDevice = {
  lastUploadDate?: string | null;
  transmitterId?: string | null;
  transmitterGeneration?: 'unknown' | 'g4' | 'g5' | 'g6' | 'g6+' | 'dexcomPro' | 'g7' | null;
  displayDevice?: string | null;
  displayApp?: string | null;
  alertSchedules?: readonly unknown[] | null;
};

/** A user-entered event (`/v3/users/self/events`). */
export type DexcomEvent = {
  recordId?: string;
  systemTime: string;
  displayTime: string;
  eventType: 'unknown' | 'insulin' | 'carbs' | 'exercise' | 'health' | 'bloodGlucose' | 'notes' | 'note';
  /** insulin: fastActing/longActing; exercise: light/medium/heavy; health: illness, stress, … */
  eventSubType?: string | null;
  value?: number | null;
  /** grams (carbs), units (insulin), minutes (exercise), mg/dL (blood glucose). */
  unit?: string | null;
  eventStatus?: 'created' | 'updated' | 'deleted';
  transmitterId?: string | null;
  transmitterGeneration?: string | null;
  displayDevice?: string | null;
};
