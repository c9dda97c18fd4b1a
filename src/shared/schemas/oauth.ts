import { Type } from 'typebox';

export const AccessTokenBody = Type.Object({
  grant_type: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String({ maxLength: 200 })),
  client_secret: Type.Optional(Type.String({ maxLength: 200 })),
});

export const AccessTokenReply = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ description: 'seconds' }),
});
