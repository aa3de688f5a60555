// Athlete: the user's profile at the provider (docs/wire-contract.md#data-model). Sent under the key
// `athlete`, not `data`. SDK fields plus the newer `account_creation_date` and `provider_user_id`.
import Type, { type Static } from 'typebox';
import { NullableArray, NullableNumber, NullableString } from './schema-helpers.ts';
import { DeviceData } from './shared.ts';

export const Athlete = Type.Object(
  {
    first_name: NullableString(),
    last_name: NullableString(),
    email: NullableString(),
    sex: NullableString(),
    gender: NullableString(),
    date_of_birth: NullableString({ description: 'ISO date' }),
    bio: NullableString(),
    city: NullableString(),
    state: NullableString(),
    country: NullableString(),
    joined_provider: NullableString({ description: 'ISO date or datetime' }),
    age: NullableNumber(),
    devices: NullableArray(DeviceData),
    account_creation_date: NullableString(),
    provider_user_id: NullableString(),
  },
  { $id: 'Athlete', title: 'Athlete', description: "The user's profile at the provider." },
);

export type Athlete = Static<typeof Athlete>;
