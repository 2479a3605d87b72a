import { Type } from '@sinclair/typebox';

export const AccountOut = Type.Object({
  id: Type.String({ minLength: 1 }),
  username: Type.String({ minLength: 1 }),
  displayName: Type.String(),
});

/** What a username may be made of; OPERATOR_ACCOUNTS is checked against it too. */
export const USERNAME_PATTERN = '^[A-Za-z0-9_.-]+$';
export const USERNAME_MAX_LENGTH = 64;

export const Session = Type.Object({ token: Type.String(), account: AccountOut });

export const RegisterBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: USERNAME_MAX_LENGTH, pattern: USERNAME_PATTERN }),
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
