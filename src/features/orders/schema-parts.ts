// Schema pieces several order API schemas share: the status enumerations and paging parameters.
import Type from 'typebox';
import { ORDER_STATUSES, RESULTS_STATUSES } from './domain/statuses.ts';

export const OrderStatus = Type.Enum(ORDER_STATUSES);
export const ResultsStatus = Type.Enum(RESULTS_STATUSES);

export const PageLimit = Type.Optional(
  Type.Integer({ minimum: 1, maximum: 100, description: 'Page size, 1-100, default 25' }),
);
export const Cursor = Type.Optional(
  Type.String({ description: 'next_cursor from the previous page (opaque)' }),
);
