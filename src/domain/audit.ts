/**
 * The audit trail: who changed what, and when. An entry names the attributes a write sent,
 * never their values, so a password change is recorded without the password.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { ConsentTransition } from './consent.js';
import { StringEnum } from './schema.js';

export const AUDIT_EVENTS = 'audit-events';

export type AuditAction = 'create' | 'update' | 'delete' | 'expire' | 'revoke' | 'sign-in' | 'withdraw';

/** Who makes a change, and which attributes it sends: what every write passes to the store. */
export interface AuditContext {
  /** The credential id (`CIRCULATION_ADMIN_KEY` for the key from the environment; null with AUTH=off). */
  actor: string | null;
  attributes: readonly string[];
}

export interface AuditEvent {
  id: string;
  occurredAt: number;
  actor: string | null;
  action: AuditAction;
  resourceType: string;
  resourceId: string;
  userId: string | null;
  attributes: string[];
  /** The event this change is (`user.created`, …), or null when it is not one. */
  eventType: string | null;
  /** Of a newsletter consent's change: its old and new state and source; null for any other entry. */
  consent: ConsentTransition | null;
}

export const AuditEventAttributes = Type.Object({
  occurredAt: Type.String({ format: 'date-time' }),
  actor: Type.Union([Type.String(), Type.Null()]),
  action: Type.String(),
  resourceType: Type.String(),
  resourceId: Type.String(),
  userId: Type.Union([Type.String(), Type.Null()]),
  attributes: Type.Array(Type.String()),
});

/** The attribute (and relationship) names a write document sends. */
export function sentAttributeNames(attributes: object | undefined, relationships?: object): string[] {
  return [...Object.keys(attributes ?? {}), ...Object.keys(relationships ?? {})].sort();
}

/** The audit name of the admin credential taken from the environment (CIRCULATION_ADMIN_KEY). */
export const ENVIRONMENT_ADMIN = 'CIRCULATION_ADMIN_KEY';

const STAFF_ACTOR = /^staff:([1-9][0-9]{0,14})$/;
const CREDENTIAL_ACTOR = /^[1-9][0-9]{0,14}$/;

export const ACTOR_TYPES = ['credentials', 'staff', 'system'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export const Actor = Type.Union(
  [
    Type.Object(
      {
        type: StringEnum(ACTOR_TYPES, {
          description:
            'credentials: an API key (or the admin key from the environment); staff: a staff member in the console; ' +
            'system: the service itself or its command line (cli, import, lapse, seed).',
        }),
        id: Type.String({ description: 'The API key id, the staff member id, or the name of the system part.' }),
        name: Type.Union([Type.String(), Type.Null()], {
          description:
            "The API key's or staff member's name as it is now, the system part's for the system; null when gone.",
        }),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'Who made the change; null when the service ran without authentication (AUTH=off).' },
);
export type Actor = Static<typeof Actor>;

/** Who an audit entry's actor is, without the name (which the store knows): null for none. */
export function actorOf(actor: string | null): { type: ActorType; id: string } | null {
  if (actor === null) return null;
  const staff = STAFF_ACTOR.exec(actor);
  if (staff) return { type: 'staff', id: staff[1] as string };
  if (CREDENTIAL_ACTOR.test(actor) || actor === ENVIRONMENT_ADMIN) return { type: 'credentials', id: actor };
  return { type: 'system', id: actor };
}
