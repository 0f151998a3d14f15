/**
 * Privacy requests: what a reader asked of the publisher under data protection law (GDPR Art. 15
 * to 21) — a copy of their data (`access`), its `erasure`, its `rectification`, or an `objection`
 * to its use — with when it came and when the answer is due: one calendar month later (Art. 12(3)),
 * worked out in UTC (31 January → 28 or 29 February, the month's last day when it has no such
 * date). A request is open until `completedAt` is set. Once its reader is erased it keeps nothing
 * of them: no link to the reader, no notes; only its kind, its dates, and that it was fulfilled
 * (`readerErasedAt`), the erasure completing it if nothing had.
 */
import { Type, type Static } from '@sinclair/typebox';
import { formatInstant, isWritableInstant, parseInstant } from './dates.js';
import { failures, type Problem } from './failures.js';
import { isRecord, Nullable, StringEnum } from './schema.js';
import { USERS } from './user.js';
import { withRules } from './validation.js';

export const PRIVACY_REQUESTS = 'privacy-requests';

export const PRIVACY_REQUEST_KINDS = ['access', 'erasure', 'rectification', 'objection'] as const;
export type PrivacyRequestKind = (typeof PRIVACY_REQUEST_KINDS)[number];

/** The longest `notes` may be: a staff member's account of what was done, not a document. */
export const MAX_PRIVACY_NOTES = 2000;

const Instant = (description: string) =>
  Type.String({
    format: 'date-time',
    errorMessage: {
      format:
        'must be an ISO-8601 timestamp with a UTC offset, such as 2026-01-31T09:00:00+00:00, in the years 0000 to 9999 in UTC',
    },
    description,
  });

const own = {
  kind: StringEnum(PRIVACY_REQUEST_KINDS, {
    description: 'access: a copy of their data; erasure; rectification; objection to its use.',
  }),
  receivedAt: Type.Optional(Instant('When the request came; now when not sent. dueAt is one calendar month later.')),
  completedAt: Type.Optional(
    Nullable(Instant('When it was answered; null (the default) while it is open. Not before receivedAt.')),
  ),
  notes: Type.Optional(
    Nullable(
      Type.String({
        maxLength: MAX_PRIVACY_NOTES,
        description: `What was asked and done, at most ${MAX_PRIVACY_NOTES} characters; cleared when the reader is erased.`,
      }),
    ),
  ),
};

export const PrivacyRequestCreateAttributes = withRules(
  Type.Object(own, { additionalProperties: false }),
  datesRuleProblems,
);
export const PrivacyRequestUpdateAttributes = withRules(
  Type.Partial(Type.Object(own), { additionalProperties: false }),
  datesRuleProblems,
);

const UserIdentifier = Type.Object(
  {
    type: Type.Literal(USERS),
    id: Type.String({ pattern: '^[1-9][0-9]{0,14}$', errorMessage: { pattern: 'must be the id of a user' } }),
  },
  { additionalProperties: false },
);

/** The reader a request is about: required when it is made, fixed after. */
export const PrivacyRequestRelationships = Type.Object(
  { user: Type.Object({ data: UserIdentifier }, { additionalProperties: false }) },
  { additionalProperties: false },
);

export const PrivacyRequestRelationshipsRead = Type.Object({
  user: Type.Object({
    data: Nullable(Type.Object({ type: Type.Literal(USERS), id: Type.String() })),
  }),
});

export const PrivacyRequestAttributes = Type.Object({
  kind: StringEnum(PRIVACY_REQUEST_KINDS),
  receivedAt: Type.String({ format: 'date-time' }),
  dueAt: Type.String({ format: 'date-time', description: 'Read-only: one calendar month after receivedAt (UTC).' }),
  completedAt: Nullable(Type.String({ format: 'date-time' })),
  notes: Nullable(Type.String()),
  readerErasedAt: Nullable(
    Type.String({
      format: 'date-time',
      description: 'Read-only: when the reader was erased; the request then keeps no link to them and no notes.',
    }),
  ),
});

export type PrivacyRequestCreate = Static<typeof PrivacyRequestCreateAttributes>;
export type PrivacyRequestUpdate = Static<typeof PrivacyRequestUpdateAttributes>;

/** What a store keeps of a request, apart from its id; instants in epoch seconds. */
export interface PrivacyRequestValues {
  kind: PrivacyRequestKind;
  receivedAt: number;
  dueAt: number;
  completedAt: number | null;
  notes: string | null;
}

export interface StoredPrivacyRequest extends PrivacyRequestValues {
  id: string;
  /** Null once the reader is erased. */
  userId: string | null;
  readerErasedAt: number | null;
  version: number;
}

/**
 * One calendar month after an instant, in UTC, at the same time of day: the same day of the next
 * month, or that month's last day when it has no such day (31 January → 28 or 29 February).
 */
export function oneMonthAfter(epochSeconds: number): number {
  const at = new Date(epochSeconds * 1000);
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth() + 1;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const next = new Date(at.getTime());
  next.setUTCDate(1);
  next.setUTCMonth(month);
  next.setUTCDate(Math.min(at.getUTCDate(), lastDay));
  return Math.floor(next.getTime() / 1000);
}

/** The values of a new request from what was sent, received `now` unless it says when. */
export function newPrivacyRequest(sent: PrivacyRequestCreate, now: number): PrivacyRequestValues {
  const receivedAt = sent.receivedAt === undefined ? now : instant(sent.receivedAt);
  return checked({
    kind: sent.kind,
    receivedAt,
    dueAt: oneMonthAfter(receivedAt),
    completedAt: sent.completedAt == null ? null : instant(sent.completedAt),
    notes: sent.notes ?? null,
  });
}

/** A request's values changed by what was sent; the due date follows receivedAt. */
export function changedPrivacyRequest(current: PrivacyRequestValues, sent: PrivacyRequestUpdate): PrivacyRequestValues {
  const receivedAt = sent.receivedAt === undefined ? current.receivedAt : instant(sent.receivedAt);
  return checked({
    kind: sent.kind ?? current.kind,
    receivedAt,
    dueAt: oneMonthAfter(receivedAt),
    completedAt:
      sent.completedAt === undefined
        ? current.completedAt
        : sent.completedAt === null
          ? null
          : instant(sent.completedAt),
    notes: sent.notes === undefined ? current.notes : sent.notes,
  });
}

export function toPrivacyRequestAttributes(request: StoredPrivacyRequest): Static<typeof PrivacyRequestAttributes> {
  return {
    kind: request.kind,
    receivedAt: formatInstant(request.receivedAt),
    dueAt: formatInstant(request.dueAt),
    completedAt: request.completedAt === null ? null : formatInstant(request.completedAt),
    notes: request.notes,
    readerErasedAt: request.readerErasedAt === null ? null : formatInstant(request.readerErasedAt),
  };
}

export function toPrivacyRequestRelationships(
  request: StoredPrivacyRequest,
): Static<typeof PrivacyRequestRelationshipsRead> {
  return { user: { data: request.userId === null ? null : { type: USERS, id: request.userId } } };
}

const COMPLETED_BEFORE_RECEIVED: Problem = {
  pointer: '/data/attributes/completedAt',
  detail: 'must not be before receivedAt',
};

/** The order of the two dates, where a write sends both. */
function datesRuleProblems(attributes: unknown): Problem[] {
  if (!isRecord(attributes) || typeof attributes.receivedAt !== 'string' || typeof attributes.completedAt !== 'string')
    return [];
  const received = parseInstant(attributes.receivedAt);
  const completed = parseInstant(attributes.completedAt);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a comparison with undefined is false; this is for the type
  if (received === undefined || completed === undefined) return [];
  return completed < received ? [COMPLETED_BEFORE_RECEIVED] : [];
}

/** Refuses a completion before the request came (where one of the two dates was stored before), and a due date past 9999. */
function checked(values: PrivacyRequestValues): PrivacyRequestValues {
  if (!isWritableInstant(values.dueAt)) {
    throw failures.invalid([
      {
        pointer: '/data/attributes/receivedAt',
        detail: 'must be early enough for its due date to be in the year 9999',
      },
    ]);
  }
  if (values.completedAt !== null && values.completedAt < values.receivedAt) {
    throw failures.invalid([COMPLETED_BEFORE_RECEIVED]);
  }
  return values;
}

function instant(text: string): number {
  // The schema has already checked the format.
  return parseInstant(text) as number;
}
