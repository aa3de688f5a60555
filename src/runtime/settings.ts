// Every module's settings, composed: the order here is the order of `.env.example` and of the
// problems in a boot error. A module that adds settings declares them in its own settings.ts and
// is listed here; `loadRuntimeConfig` checks the whole environment in one pass at start-up.
import { type Config, coreSettings, loadConfig } from '../core/config.ts';
import { type AnySettingsGroup, ConfigError, type RawEnv } from '../core/settings.ts';
import { renderEnvExample } from '../core/settings-env-example.ts';
import { dashboardSettings } from '../features/dashboard/settings.ts';
import { dataSettings } from '../features/data/settings.ts';
import { dayCompanionsSettings } from '../features/day-companions/settings.ts';
import { labReportSettings } from '../features/lab-reports/settings.ts';
import { mobileSettings } from '../features/mobile/settings.ts';
import { mergeSettings } from '../features/merge/settings.ts';
import { mcpSettings } from '../features/mcp/settings.ts';
import { fhirExportSettings } from '../features/fhir-export/settings.ts';
import { orderSettings } from '../features/orders/settings.ts';
import { providerSyncSettings, syncSettings } from '../features/connectors/settings.ts';
import { webhookSettings } from '../features/delivery/settings.ts';
import { hostedSettings } from '../http/hosted/settings.ts';
import { providerHttpSettings, providerSettings } from '../provider-access/settings.ts';
import { providerKitSettings } from '../provider-kit/settings.ts';
import { providerRegistry } from '../providers/index.ts';
import { memoryTuningSettings } from './memory-settings.ts';
import { jobSettings } from '../jobs/settings.ts';
import { tracingSettings } from '../core/tracing-settings.ts';

/** Every group but the core one (loadConfig always reads that first). */
export const SETTINGS_GROUPS: readonly AnySettingsGroup[] = [
  memoryTuningSettings,
  jobSettings,
  hostedSettings,
  syncSettings,
  providerHttpSettings,
  providerSettings,
  providerSyncSettings,
  providerKitSettings,
  webhookSettings,
  dataSettings,
  dayCompanionsSettings,
  orderSettings,
  dashboardSettings,
  labReportSettings,
  mobileSettings,
  mergeSettings,
  mcpSettings,
  tracingSettings,
  fhirExportSettings,
];

/** For the documentation: the core group first, then the others. */
export const ALL_SETTINGS_GROUPS: readonly AnySettingsGroup[] = [coreSettings, ...SETTINGS_GROUPS];

/** The provider ids the templates expand over. */
export const providerIds = (): string[] => Object.keys(providerRegistry);

/** The configuration of a process, every setting checked; one ConfigError lists every bad value. */
export const loadRuntimeConfig = (env: RawEnv): Config =>
  loadConfig(env, { groups: SETTINGS_GROUPS, providerIds: providerIds() });

/**
 * Every module's settings of a configuration loaded without them (a test's), checked together: a
 * context is never built on a bad value, and all of them are reported at once.
 */
export function checkSettings(config: Config): void {
  const problems = config.settings.problems(SETTINGS_GROUPS, providerIds());
  if (problems.length > 0) throw new ConfigError(problems);
}

/** The text `.env.example` must hold (scripts/settings-env-example.ts writes it; a test compares). */
export const envExample = (): string => renderEnvExample(ALL_SETTINGS_GROUPS, providerIds());
