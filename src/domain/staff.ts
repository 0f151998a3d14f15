/**
 * Staff: the publisher's people, who use the console. They are neither readers nor API
 * credentials; each has a role, and a role is a set of the credentials' scopes, written here once.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { Scope } from './api-key.js';
import { StringEnum } from './schema.js';
import { Email, Password } from './user.js';

export const STAFF = 'staff' as const;

export const ROLES = ['agent', 'supervisor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/**
 * An agent reads and changes readers and their subscriptions (and has their password reset links
 * mailed to them, never shown: domain/password-reset.ts); a supervisor also changes products and
 * newsletters; an admin also manages API credentials, webhooks, the audit trail and staff.
 */
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  agent: ['write'],
  supervisor: ['write', 'catalogue'],
  admin: ['admin'],
};

/** The audit trail's name of a staff member: `staff:<id>`. */
export function staffActor(id: string): string {
  return `staff:${id}`;
}

/**
 * The key a staff member's console sign-in attempts are counted under, from every network
 * together; each (email, network) pair's key is this one, a space and the network
 * (use-cases/staff/sign-in-attempts.ts). It holds a colon before the email's @, as no reader's key (a bare
 * email) can.
 */
export function staffAttemptsKey(email: string): string {
  return `staff:${email.toLowerCase()}`;
}

const StaffName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  errorMessage: { pattern: "can't be blank" },
});

export const StaffCreateAttributes = Type.Object(
  {
    email: Email,
    name: StaffName,
    role: StringEnum(ROLES),
    password: Type.Optional(Password),
  },
  { additionalProperties: false },
);

export const StaffUpdateAttributes = Type.Object(
  {
    name: Type.Optional(StaffName),
    role: Type.Optional(StringEnum(ROLES)),
    disabled: Type.Optional(
      Type.Boolean({ description: 'True disables the account and ends its sessions at once; false enables it.' }),
    ),
    password: Type.Optional(
      Type.String({
        ...Password,
        description:
          "A new password. A staff member changes their own with currentPassword, which ends every other session of theirs; an admin sets another's without it, which ends all of theirs. " +
          Password.description,
      }),
    ),
    currentPassword: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        writeOnly: true,
        description:
          'With password, from a staff member changing their own: verified, and counted as a console sign-in attempt of their email from this network. Never stored, logged or returned.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const StaffAttributes = Type.Object({
  email: Type.String(),
  name: Type.String(),
  role: StringEnum(ROLES),
  createdAt: Type.String({ format: 'date-time' }),
  disabledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export type StaffCreate = Static<typeof StaffCreateAttributes>;
export type StaffUpdate = Static<typeof StaffUpdateAttributes>;

export interface StaffMember {
  id: string;
  email: string;
  name: string;
  role: Role;
  createdAt: number;
  disabledAt: number | null;
  /** Goes up by one with every change: the resource's ETag. */
  version: number;
}
