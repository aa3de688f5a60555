// The simulated devices that "recorded" sandbox data.
import type { Static } from 'typebox';
import type { DeviceData as DeviceDataSchema } from '../../model/shared.ts';
import type { DayContext } from './context.ts';
import { hashString } from './random.ts';

export type DeviceData = Static<typeof DeviceDataSchema>;

type DeviceKind = 'watch' | 'scale' | 'cgm' | 'ring';

type DataProvided = NonNullable<DeviceData['data_provided']>;

const DEVICES: Record<
  DeviceKind,
  { name: string; hardware: string; software: string; provides: DataProvided }
> = {
  watch: {
    name: 'Tributary Sandbox Watch',
    hardware: 'SW-2',
    software: '4.12.0',
    provides: ['STEPS', 'ACTIVE_MINUTES', 'CALORIES', 'DISTANCE', 'HEART_RATE', 'SPEED', 'CADENCE'],
  },
  scale: { name: 'Tributary Sandbox Scale', hardware: 'SC-1', software: '2.3.1', provides: ['BMR'] },
  cgm: { name: 'Tributary Sandbox CGM', hardware: 'CG-3', software: '1.8.4', provides: [] },
  ring: {
    name: 'Tributary Sandbox Ring',
    hardware: 'RG-2',
    software: '3.0.7',
    provides: ['SLEEP_TYPE', 'HEART_RATE', 'OXYGEN_SATURATION'],
  },
};

/** Activation two years before the day keeps "activated before it recorded" true for any date. */
const ACTIVATION_LEAD_MS = 730 * 86_400_000;

export function deviceData(context: DayContext, kind: DeviceKind, lastUploadMs: number): DeviceData {
  const device = DEVICES[kind];
  const serial = hashString(`${context.seed}|${kind}`).toString(16).toUpperCase().padStart(8, '0');
  const base = {
    activation_timestamp: context.time(context.startMs - ACTIVATION_LEAD_MS),
    hardware_version: device.hardware,
    last_upload_date: context.time(lastUploadMs),
    manufacturer: 'Tributary',
    name: device.name,
    serial_number: `${device.hardware}-${serial}`,
    software_version: device.software,
  };
  if (kind !== 'watch') {
    return { ...base, data_provided: [...device.provides], other_devices: [], sensor_state: 'active' };
  }
  return {
    ...base,
    data_provided: [...device.provides],
    other_devices: [
      {
        activation_timestamp: base.activation_timestamp,
        data_provided: ['HEART_RATE'],
        hardware_version: 'HRM-1',
        last_upload_date: base.last_upload_date,
        manufacturer: 'Tributary',
        name: 'Tributary Sandbox Chest Strap',
        serial_number: `HRM-1-${serial}`,
        software_version: '1.0.3',
      },
    ],
    sensor_state: 'active',
  };
}
