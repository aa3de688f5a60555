import { type Kysely, sql } from 'kysely';

/**
 * Destinations of other kinds than the webhook no longer take query strings in their URLs (a
 * PostgreSQL URL keeps only sslmode, application_name and connect_timeout), and what the delivery
 * log shows of them (`webhook_destinations.url`, `webhook_attempts.url`) never carries one: a
 * `?password=…` or `?sslpassword=…` saved before was shown there in plain text. The query strings
 * already written are removed (the webhook's own URL is the developer's and stays as it is). The
 * sealed settings are left alone: such a destination is refused when it connects until changed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE webhook_destinations SET url = regexp_replace(url, '\\?[^#]*', '')
     WHERE kind <> 'webhook' AND url LIKE '%?%'`.execute(db);
  await sql`
    UPDATE webhook_attempts a SET url = regexp_replace(a.url, '\\?[^#]*', '')
      FROM webhook_events e
     WHERE e.id = a.event_id AND e.destination_id IS NOT NULL AND a.url LIKE '%?%'`.execute(db);
}
