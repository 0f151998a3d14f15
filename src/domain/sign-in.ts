/**
 * Readers signing in: what a website backend sends, and what it gets back.
 */
import { Type } from '@sinclair/typebox';
import { Email } from './user.js';

export const SIGN_INS = 'sign-ins';

export const SignInCreateAttributes = Type.Object(
  {
    email: Email,
    password: Type.String({
      minLength: 1,
      // Longer than a new password may be (256): a hash brought from elsewhere may be of a longer one.
      maxLength: 1024,
      writeOnly: true,
      description: 'Verified against the stored hash; never stored, logged or returned.',
    }),
  },
  { additionalProperties: false },
);

export const SignInAttributes = Type.Object({ signedInAt: Type.String({ format: 'date-time' }) });
