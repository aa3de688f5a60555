// The setting that switches the start-up memory sizing (runtime/memory-limits.js) off. Declared
// apart from it so that the launcher, which reads it before anything else is loaded, does not load
// the settings schema library in the process image it is about to replace.
import { customSetting, defineSettings } from '../core/settings.ts';
import { Type } from 'typebox';
import { tuningEnabled } from './memory-limits.js';

/** Registered with the others in runtime/settings.ts. */
export const memoryTuningSettings = defineSettings({
  id: 'memory-tuning',
  owner: 'runtime/memory-limits.js',
  settings: {
    TRIBUTARY_MEMORY_TUNING: customSetting({
      description:
        "`tributary serve` sizes its own V8 and malloc settings for a small server by re-executing itself once at start (flags of the same name in NODE_OPTIONS win); `off` runs with Node's defaults.",
      schema: Type.String({ default: 'on' }),
      example: 'off',
      parse: tuningEnabled,
    }),
  },
  build: (v) => ({ enabled: v.TRIBUTARY_MEMORY_TUNING }),
});
