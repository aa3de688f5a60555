// Limits on hosted-page actions anyone can take without a credential (counted in the database,
// so every API process shares them).
import { defineSettings } from '../../core/settings.ts';
import { windowRuleSetting } from '../../features/limits/settings.ts';

export const hostedSettings = defineSettings({
  id: 'hosted',
  owner: 'http/hosted/limits.ts',
  intro: [
    'Limits on what anyone can do without a credential, counted in the database (every process',
    'shares them), each in the form count/seconds. Past them: 429 (a page for browsers, problem+json otherwise).',
  ],
  settings: {
    HOSTED_ACTION_LIMIT_PER_IP: windowRuleSetting(
      { limit: 30, windowSeconds: 60 },
      'Hosted-page actions (widget connect, kit activation) per client address, across pages.',
    ),
    HOSTED_ACTION_LIMIT_PER_SESSION: windowRuleSetting(
      { limit: 10, windowSeconds: 900 },
      'Connect attempts per widget session (a session lives 15 minutes).',
    ),
  },
  build: (v) => ({ perAddress: v.HOSTED_ACTION_LIMIT_PER_IP, perSession: v.HOSTED_ACTION_LIMIT_PER_SESSION }),
});
