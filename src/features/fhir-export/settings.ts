// The FHIR export's settings (declared here, parsed once at boot by core/settings.ts).
import { defineSettings, numberSetting } from '../../core/settings.ts';

export const fhirExportSettings = defineSettings({
  id: 'fhir-export',
  owner: 'features/fhir-export',
  intro: ['FHIR bulk export (docs/fhir.md#bulk-export).'],
  settings: {
    FHIR_EXPORT_RETENTION_HOURS: numberSetting({
      description:
        'Hours a finished bulk export’s files are kept (counted from its completion); then they are deleted and its status URL answers 404.',
      default: 24,
      integer: true,
      minimum: 1,
      maximum: 720,
      problem: 'must be a whole number of hours from 1 to 720',
    }),
    FHIR_EXPORT_LINK_MINUTES: numberSetting({
      description:
        'Minutes a file link of an export manifest works; polling the status URL again gives fresh links.',
      default: 60,
      integer: true,
      minimum: 1,
      maximum: 1440,
      problem: 'must be a whole number of minutes from 1 to 1440',
    }),
  },
  build: (v) => ({
    retentionHours: v.FHIR_EXPORT_RETENTION_HOURS,
    linkMinutes: v.FHIR_EXPORT_LINK_MINUTES,
  }),
});
