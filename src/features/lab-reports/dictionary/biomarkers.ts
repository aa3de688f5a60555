// The reader's names for the service's one biomarker dictionary (src/model/biomarkers.ts), which
// the order API reads too.
export {
  BIOMARKERS,
  PANEL_NAMES,
  type AlternateUnit,
  type BiomarkerEntry,
  type PanelKey,
} from '../../../model/biomarkers.ts';
