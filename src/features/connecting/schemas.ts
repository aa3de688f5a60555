import Type, { type TStringOptions } from 'typebox';
import { exampleProviderId } from '../../provider-access/example-ids.ts';

const NullableString = (options: TStringOptions = {}) => Type.Union([Type.String(options), Type.Null()]);

export const AuthenticateUserQuery = Type.Object({
  resource: Type.Optional(
    Type.String({ description: 'Provider id from /v2/integrations (may also be sent in the body)' }),
  ),
});

export const AuthenticateUserBody = Type.Object(
  {
    resource: Type.Optional(Type.String()),
    reference_id: Type.Optional(NullableString({ maxLength: 255 })),
    language: Type.Optional(
      NullableString({ description: 'en, de, fr, es, it, nl, pt or ja; others fall back to en' }),
    ),
    auth_success_redirect_url: Type.Optional(NullableString({ description: 'Absolute http(s) URL' })),
    auth_failure_redirect_url: Type.Optional(NullableString({ description: 'Absolute http(s) URL' })),
  },
  {
    examples: [
      {
        resource: exampleProviderId('watch'),
        reference_id: 'your-user-42',
        language: 'en',
        auth_success_redirect_url: 'https://app.example.com/connected',
        auth_failure_redirect_url: 'https://app.example.com/connect-failed',
      },
    ],
  },
);

export const AuthenticateUserResponse = Type.Object({
  status: Type.Literal('success'),
  user_id: Type.String({ description: 'The new user, pending until consent completes' }),
  auth_url: Type.String({
    description: "The provider's consent page; open it in the end user's browser",
    examples: [
      'https://connect.garmin.com/oauth2Confirm?response_type=code&client_id=your-client-id&state=4b1f0c2e7d3a4e59',
    ],
  }),
});

export const CallbackParams = Type.Object({ provider: Type.String() });

export const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
  error_description: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String()),
});

export const DeauthenticateQuery = Type.Object({ user_id: Type.String() });

export const StatusResponse = Type.Object({ status: Type.Literal('success') });

export const AuthTokenQuery = Type.Object({
  reference_id: Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'Binds the token: the SDK connection made with it carries this reference id',
      examples: ['your-user-42'],
    }),
  ),
});

export const AuthTokenResponse = Type.Object({
  status: Type.Literal('success'),
  token: Type.String({ description: 'Single use', examples: ['3f1c9a7e5b2d4c8e9a1b6d0f7e2c4a8b'] }),
  expires_in: Type.Integer({ description: 'Seconds' }),
});
