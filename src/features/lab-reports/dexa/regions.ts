// The body regions a DXA report prints its rows under, as the keys results carry in
// `biomarker.region` (the vendor scopes scan results by region where lab results have a
// specimen). The printed names follow the report layouts of the two common scanner families
// (Hologic and GE Lunar print regions such as "L Arm", "Android (A)", "L1-L4", "Neck", "Troch").
// "Total" means the whole body, except in a spine table (L1–L4 together) or a hip table (the
// total hip), where the table's own rows say which.

export type RegionKey =
  | 'total'
  | 'head'
  | 'arms'
  | 'left_arm'
  | 'right_arm'
  | 'legs'
  | 'left_leg'
  | 'right_leg'
  | 'trunk'
  | 'left_ribs'
  | 'right_ribs'
  | 'thoracic_spine'
  | 'lumbar_spine'
  | 'pelvis'
  | 'android'
  | 'gynoid'
  | 'l1'
  | 'l2'
  | 'l3'
  | 'l4'
  | 'l1_l4'
  | 'femoral_neck'
  | 'trochanter'
  | 'intertrochanter'
  | 'wards_triangle'
  | 'total_hip';

/** Printed names, matched whole after lower-casing and collapsing spaces. */
const NAMES: [RegExp, RegionKey][] = [
  [/^(whole body )?total( body)?$/, 'total'],
  [/^head$/, 'head'],
  [/^arms?$/, 'arms'],
  [/^(l|left) arm$/, 'left_arm'],
  [/^(r|right) arm$/, 'right_arm'],
  [/^legs?$/, 'legs'],
  [/^(l|left) leg$/, 'left_leg'],
  [/^(r|right) leg$/, 'right_leg'],
  [/^trunk$/, 'trunk'],
  [/^(l|left) ribs$/, 'left_ribs'],
  [/^(r|right) ribs$/, 'right_ribs'],
  [/^t ?spine$/, 'thoracic_spine'],
  [/^l ?spine$/, 'lumbar_spine'],
  [/^pelvis$/, 'pelvis'],
  [/^android( \(a\))?$/, 'android'],
  [/^gynoid( \(g\))?$/, 'gynoid'],
  [/^l1$/, 'l1'],
  [/^l2$/, 'l2'],
  [/^l3$/, 'l3'],
  [/^l4$/, 'l4'],
  [/^(total )?\(?l1 ?[-–] ?l4\)?$/, 'l1_l4'],
  [/^(left |right )?(femoral )?neck$/, 'femoral_neck'],
  [/^(left |right )?troch(anter)?$/, 'trochanter'],
  [/^(left |right )?inter(trochanter)?$/, 'intertrochanter'],
  [/^(left |right )?ward'?s( triangle)?$/, 'wards_triangle'],
  [/^(left |right )?total hip$/, 'total_hip'],
];

const SPINE = new Set<RegionKey>(['l1', 'l2', 'l3', 'l4']);
const HIP = new Set<RegionKey>(['femoral_neck', 'trochanter', 'intertrochanter', 'wards_triangle']);

/** The region a printed row name names, or undefined when it names none. */
export function regionOf(printed: string): RegionKey | undefined {
  const name = printed.toLowerCase().replace(/\s+/g, ' ').trim();
  return NAMES.find(([pattern]) => pattern.test(name))?.[1];
}

/** What "Total" means in a table holding these other regions. */
export function totalIn(regions: readonly RegionKey[]): RegionKey {
  if (regions.some((region) => SPINE.has(region))) return 'l1_l4';
  if (regions.some((region) => HIP.has(region))) return 'total_hip';
  return 'total';
}
