import { Type } from '@sinclair/typebox';

export const AccountOut = Type.Object({
  id: Type.String({ minLength: 1 }),
  username: Type.String({ minLength: 1 }),
  displayName: Type.String(),
});

export const Session = Type.Object({ token: Type.String(), account: AccountOut });

export const RegisterBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$' }),
    password: Type.String({ minLength: 8, maxLength: 1024 }),
    displayName: Type.String({ minLength: 1, maxLength: 128 }),
  },
  { additionalProperties: false },
);

export const LoginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
