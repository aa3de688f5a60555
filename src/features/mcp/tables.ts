/** A per-user MCP token (migration 0030): one user, read-only, until `expires_at` or revoked. */
export interface McpTokensTable {
  id: string;
  /** SHA-256 (hex) of the token; the token itself is shown once, when minted. */
  token_hash: string;
  developer_id: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

// This module owns this table: it adds it to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    mcp_tokens: McpTokensTable;
  }
}
