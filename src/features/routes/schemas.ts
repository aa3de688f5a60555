// Route schemas of the Routes API (the vendor's `/routes`, `/pushedRoutes`). Ids are 64-bit
// integers sent as strings; a malformed one is a 400 naming it (checked by the service).
import Type, { type Static } from 'typebox';
import { RouteTemplate, RouteUpdate } from '../../model/route.ts';

export { RouteTemplate, RouteUpdate };

const Stamp = Type.String({ format: 'date-time' });

export const RouteParams = Type.Object({
  route_id: Type.String({ description: 'Route id (an integer)', examples: ['295581149349019648'] }),
});
export const PushedRouteParams = Type.Object({
  pushed_route_id: Type.String({ description: 'Pushed route id (an integer)', examples: ['7'] }),
});
export const UserQuery = Type.Object({
  user_id: Type.String({ description: 'UUID of the user (connection)' }),
});
export const CascadeQuery = Type.Object({
  cascade: Type.Optional(
    Type.Boolean({ description: 'Also re-push the updated route to every device it was pushed to (202)' }),
  ),
});

export const RouteCreated = Type.Object({
  status: Type.Literal('success'),
  route_id: Type.String({ examples: ['295581149349019648'] }),
});

export const StoredRoute = Type.Object(
  {
    route_id: Type.String(),
    ...Type.Partial(RouteTemplate).properties,
    created_at: Stamp,
    updated_at: Stamp,
  },
  {
    description:
      'A stored route. Apart from waypoint coordinates, fields whose value is zero or empty are left out.',
  },
);

export const CascadeAccepted = Type.Object(
  { status: Type.Literal('accepted'), route_id: Type.String() },
  { description: 'Updated; the re-push to every device runs in the background (failures are only logged)' },
);

export const RoutePushed = Type.Object({
  status: Type.Literal('success'),
  pushed_route_id: Type.String(),
  provider_route_id: Type.String({ description: 'The route’s id at the provider' }),
});

export const PushedRoute = Type.Object({
  pushed_route_id: Type.String(),
  route_id: Type.Union([Type.String(), Type.Null()], { description: 'Null once the template is deleted' }),
  user_id: Type.String(),
  provider: Type.String(),
  provider_route_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Stamp,
  updated_at: Stamp,
});

export const Success = Type.Object({ status: Type.Literal('success') });

export type StoredRoute = Static<typeof StoredRoute>;
