import type { Migration } from 'kysely/migration';
import * as developers from './0001_developers.ts';
import * as users from './0002_users.ts';
import * as webhooks from './0003_webhooks.ts';
import * as connections from './0004_connections.ts';
import * as data from './0005_data.ts';
import * as orders from './0006_orders.ts';
import * as connectors from './0007_connectors.ts';
import * as webhookDestinations from './0008_webhook_destinations.ts';
import * as publicEndpointLimits from './0009_public_endpoint_limits.ts';
import * as webhookEventsPending from './0010_webhook_events_pending.ts';
import * as currentRecordShapes from './0011_current_record_shapes.ts';
import * as workouts from './0013_workouts.ts';
import * as orderWebhookLog from './0014_order_webhook_log.ts';
import * as webhookSecretsAndHolds from './0015_webhook_secrets_and_holds.ts';
import * as mobileSources from './0016_mobile_sources.ts';
import * as dashboard from './0018_dashboard.ts';
import * as labReports from './0019_lab_reports.ts';
import * as webhookOutboxRelay from './0020_webhook_outbox_relay.ts';
import * as mobileUploadLimits from './0022_mobile_upload_limits.ts';
import * as labReportFilesBytes from './0023_lab_report_files_bytes.ts';
import * as usersToConnections from './0024_users_to_connections.ts';
import * as partitionedRecords from './0025_partitioned_records.ts';
import * as mergeSettings from './0026_merge_settings.ts';
import * as providerSettings from './0027_provider_settings.ts';
import * as fhirExports from './0028_fhir_exports.ts';
import * as destinationKinds from './0029_destination_kinds.ts';
import * as mcpTokens from './0030_mcp_tokens.ts';
import * as erasureReceipts from './0031_erasure_receipts.ts';
import * as jobQuarantine from './0033_job_quarantine.ts';
import * as encryptionKeyFingerprint from './0034_encryption_key_fingerprint.ts';
import * as unreadableCompanions from './0035_unreadable_companions.ts';
import * as routes from './0039_routes.ts';
import * as sdkTokenReference from './0040_sdk_token_reference.ts';
import * as destinationTargetsWithoutQueries from './0041_destination_targets_without_queries.ts';
import * as eventsAndDeliveries from './0042_events_and_deliveries.ts';
import * as labReportTypesAndVersions from './0043_lab_report_types_and_versions.ts';
import * as outputFormats from './0044_output_formats.ts';
import * as originalFiles from './0045_original_files.ts';
import * as mobileSamplesStatistics from './0047_mobile_samples_statistics.ts';
import * as deliveryCascadesByStatement from './0050_delivery_cascades_by_statement.ts';
import * as mobileSamplesErasedByTrigger from './0051_mobile_samples_erased_by_trigger.ts';
import * as dayCompanions from './0052_day_companions.ts';
import * as firstAttemptsOnDeliveries from './0053_first_attempts_on_deliveries.ts';
import * as hotDeliveryOutcomes from './0054_hot_delivery_outcomes.ts';

/**
 * Every migration, in order. Names are stable forever: the migrator records them, so a
 * renamed file would run twice. Add new ones at the end.
 */
export const migrations: Record<string, Migration> = {
  '0001_developers': developers,
  '0002_users': users,
  '0003_webhooks': webhooks,
  '0004_connections': connections,
  '0005_data': data,
  '0006_orders': orders,
  '0007_connectors': connectors,
  '0008_webhook_destinations': webhookDestinations,
  '0009_public_endpoint_limits': publicEndpointLimits,
  '0010_webhook_events_pending': webhookEventsPending,
  '0011_current_record_shapes': currentRecordShapes,
  '0013_workouts': workouts,
  '0014_order_webhook_log': orderWebhookLog,
  '0015_webhook_secrets_and_holds': webhookSecretsAndHolds,
  '0016_mobile_sources': mobileSources,
  '0018_dashboard': dashboard,
  '0019_lab_reports': labReports,
  '0020_webhook_outbox_relay': webhookOutboxRelay,
  '0022_mobile_upload_limits': mobileUploadLimits,
  '0023_lab_report_files_bytes': labReportFilesBytes,
  '0024_users_to_connections': usersToConnections,
  '0025_partitioned_records': partitionedRecords,
  '0026_merge_settings': mergeSettings,
  '0027_provider_settings': providerSettings,
  '0028_fhir_exports': fhirExports,
  '0029_destination_kinds': destinationKinds,
  '0030_mcp_tokens': mcpTokens,
  '0031_erasure_receipts': erasureReceipts,
  '0033_job_quarantine': jobQuarantine,
  '0034_encryption_key_fingerprint': encryptionKeyFingerprint,
  '0035_unreadable_companions': unreadableCompanions,
  '0039_routes': routes,
  '0040_sdk_token_reference': sdkTokenReference,
  '0041_destination_targets_without_queries': destinationTargetsWithoutQueries,
  '0042_events_and_deliveries': eventsAndDeliveries,
  '0043_lab_report_types_and_versions': labReportTypesAndVersions,
  '0044_output_formats': outputFormats,
  '0045_original_files': originalFiles,
  '0047_mobile_samples_statistics': mobileSamplesStatistics,
  '0050_delivery_cascades_by_statement': deliveryCascadesByStatement,
  '0051_mobile_samples_erased_by_trigger': mobileSamplesErasedByTrigger,
  '0052_day_companions': dayCompanions,
  '0053_first_attempts_on_deliveries': firstAttemptsOnDeliveries,
  '0054_hot_delivery_outcomes': hotDeliveryOutcomes,
};
