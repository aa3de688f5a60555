// Hormone: one at-home hormone test (docs/wire-contract.md#data-model; the newer schema's
// `HormoneSample`, delivered as `data: HormoneSample[]` by the v3 hormone endpoint and the
// `hormone` event). The record is the reading itself, so it has no sample arrays and its
// identity is its `timestamp`.
import Type, { type Static } from 'typebox';
import { DateTimeText, NullableNumber } from './schema-helpers.ts';

export const Hormone = Type.Object(
  {
    timestamp: DateTimeText('when the test was taken (required)'),
    lh_mIU_per_ml: NullableNumber({ description: 'luteinizing hormone, mIU/mL' }),
    e3g_ng_per_ml: NullableNumber({
      description: 'estrone-3-glucuronide (urinary estrogen metabolite), ng/mL',
    }),
    pdg_ug_per_ml: NullableNumber({
      description: 'pregnanediol glucuronide (urinary progesterone metabolite), µg/mL',
    }),
    hcg_mIU_per_ml: NullableNumber({ description: 'human chorionic gonadotropin, mIU/mL' }),
    fsh_mIU_per_ml: NullableNumber({ description: 'follicle-stimulating hormone, mIU/mL' }),
  },
  { $id: 'Hormone', title: 'Hormone', description: 'One hormone test reading. Identity: timestamp.' },
);

export type Hormone = Static<typeof Hormone>;
