import { type Kysely, sql } from 'kysely';

/**
 * Per-user MCP tokens (features/mcp): a developer mints one to let an AI assistant read one
 * user's data through `/mcp`, read-only, until it expires or is revoked. Only the token's SHA-256
 * is stored; the token itself is shown once, when minted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE mcp_tokens (
      id text PRIMARY KEY,
      token_hash text NOT NULL UNIQUE,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz
    )
  `.execute(db);
  await sql`CREATE INDEX mcp_tokens_by_developer ON mcp_tokens (developer_id, created_at DESC)`.execute(db);
}
