import type { Clock } from '../core/clock.ts';
import type { Config } from '../core/config.ts';
import type { SecretBox } from '../core/secret-box.ts';
import type { DataTypeName } from '../model/index.ts';

/** What a provider can deliver: the historical types plus the athlete profile. */
export type ProviderDataType = DataTypeName | 'athlete';

/** What provider hooks may use; deliberately small so providers stay independent of modules. */
export type ProviderRuntime = {
  config: Config;
  clock: Clock;
  secretBox: SecretBox;
};
