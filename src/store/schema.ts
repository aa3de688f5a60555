/**
 * The whole database as Kysely sees it. It starts empty: each module that owns tables declares
 * them in its own `tables.ts`, which adds them to this interface by module augmentation
 * (`declare module '…/store/schema.ts' { interface Database { … } }`). So the store knows no
 * feature, every table has exactly one owner, and ARCHITECTURE.md lists who owns what.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by augmentation
export interface Database {}
