// Wire schemas of the MCP token routes (docs/mcp.md). The `/mcp` endpoint itself speaks the Model
// Context Protocol and is not in the OpenAPI document (docs/mcp.md says why).
import Type from 'typebox';

export const McpTokenBody = Type.Object(
  {
    user_id: Type.String({ description: 'The user (connection) the token may read, and nothing else' }),
    expires_in_seconds: Type.Optional(
      Type.Integer({ description: 'Lifetime in seconds (default 3600; 60 up to MCP_TOKEN_MAX_TTL_SECONDS)' }),
    ),
  },
  {
    description: 'Unknown members are ignored',
    examples: [{ user_id: '7f1c9a52-3b8e-4d21-9c6a-0e5b2f7d8a41', expires_in_seconds: 3600 }],
  },
);

export const McpTokenResponse = Type.Object(
  {
    token_id: Type.String({ description: 'Names the token (to revoke it); not a secret' }),
    token: Type.String({
      description: 'The bearer token, shown only now: `Authorization: Bearer <token>` on /mcp',
    }),
    user_id: Type.String(),
    scope: Type.Literal('read', { description: 'Read-only: the MCP tools only read' }),
    expires_at: Type.String({ description: 'ISO-8601 UTC; the token is refused from then on' }),
  },
  {
    examples: [
      {
        token_id: 'mtk_9f2c61d0a4b7e3c85d1f0a26',
        token: 'trm_Xk3vQ9pL2mR8sT1uW4yZ6aB0cD5eF7gH9iJ2kL4mN6o',
        user_id: '7f1c9a52-3b8e-4d21-9c6a-0e5b2f7d8a41',
        scope: 'read',
        expires_at: '2026-11-28T13:00:00.000Z',
      },
    ],
  },
);

export const McpTokenParams = Type.Object({
  token_id: Type.String({
    description: 'The token_id minting answered',
    examples: ['mtk_9f2c61d0a4b7e3c85d1f0a26'],
  }),
});
