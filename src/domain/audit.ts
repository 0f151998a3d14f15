/**
 * The audit trail: who changed what, and when. An entry names the attributes a write sent,
 * never their values, so a password change is recorded without the password.
 */
import { Type } from '@sinclair/typebox';

export const AUDIT_EVENTS = 'audit-events';

export type AuditAction = 'create' | 'update' | 'delete' | 'expire' | 'revoke' | 'sign-in';

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
