// The MCP server's settings (declared here, parsed once at boot by core/settings.ts).
import { defineSettings, numberSetting } from '../../core/settings.ts';
import { windowRuleSetting } from '../limits/settings.ts';

export const mcpSettings = defineSettings({
  id: 'mcp',
  owner: 'features/mcp',
  intro: ['MCP server for AI assistants (/mcp, docs/mcp.md).'],
  settings: {
    MCP_CALL_LIMIT: windowRuleSetting(
      { limit: 120, windowSeconds: 60 },
      'Tool calls per credential (an API key or a user token) per window, `<count>/<seconds>`; data reads are charged to the user’s read budget as well, like the data API.',
    ),
    MCP_TOKEN_MAX_TTL_SECONDS: numberSetting({
      description: 'The longest lifetime a minted per-user MCP token may ask for, in seconds.',
      default: 30 * 86_400,
      integer: true,
      minimum: 60,
      problem: 'must be a whole number of seconds, at least 60',
    }),
  },
  build: (v) => ({
    callLimit: v.MCP_CALL_LIMIT,
    tokenMaxTtlSeconds: v.MCP_TOKEN_MAX_TTL_SECONDS,
  }),
});
