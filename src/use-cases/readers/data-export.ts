/**
 * A reader's own data (GDPR Art. 15 and 20) as one JSON document: everything the service holds
 * about them, section by section, with when it was made. `GET /users/{id}/data-export` and
 * `circulation export-reader ID` write it through this one writer.
 *
 * It is written as it is read: each section a page of at most `pageSize` records at a time from
 * the store (a keyset page, an index seek), each page written out (waiting for the stream to
 * drain) before the next is read, so a reader with 10,000 subscriptions and 100,000 audit entries
 * costs the memory of one page. Never a secret or a hash: no password hash, no token or its hash,
 * no key material; a password reset is its times, a webhook delivery its ids and times.
 *
 * The document is JSON:API's meta-only document (`{"meta": {…}}`, served as
 * application/vnd.api+json like every other answer): the data is no resource of its own, and a
 * top-level `meta` is what JSON:API gives a document that carries none.
 */
import type { Writable } from 'node:stream';
import { Type, type TSchema } from '@sinclair/typebox';
import { actorOf, type AuditEvent } from '../../domain/audit.js';
import { CONSENT_SOURCES, CONSENT_STATES, ConsentTransitionSchema } from '../../domain/consent.js';
import { CONFIRMATION_LINKS } from '../../domain/consent-links.js';
import { formatInstant, formatMilliseconds } from '../../domain/dates.js';
import { DeliveryComplaintAttributes, toDeliveryComplaintAttributes } from '../../domain/delivery-complaint.js';
import { HoldAttributes, toHoldAttributes } from '../../domain/hold.js';
import { PrivacyRequestAttributes, toPrivacyRequestAttributes } from '../../domain/privacy-request.js';
import { dateAt } from '../../domain/publication.js';
import { Nullable, StringEnum } from '../../domain/schema.js';
import { SubscriptionAttributes, toSubscriptionAttributes } from '../../domain/subscription.js';
import { TemporaryAddressAttributes, toTemporaryAddressAttributes } from '../../domain/temporary-address.js';
import { toUserAttributes, UserAttributes } from '../../domain/user.js';
import type { Store, StoredUser } from '../../store/port.js';

/** How many records a page reads: what the export holds in memory at once, per section. */
export const READER_EXPORT_PAGE_SIZE = 500;

export interface ReaderExportOptions {
  /** The instant it is made (epoch seconds): `generatedAt`, and what statuses are worked out at. */
  now: number;
  /** The publication time zone, in which a hold's or temporary address's status is worked out. */
  zone: string;
  /** Records a page reads; READER_EXPORT_PAGE_SIZE unless told (tests ask for fewer). */
  pageSize?: number;
}

/** A reader's export, ready to be written; undefined from `readerExport` when there is no such reader. */
export interface ReaderExport {
  /** Writes the document to `out` (it does not end it). */
  writeTo(out: Writable): Promise<void>;
}

const Id = Type.String();
const Instant = Type.String({ format: 'date-time' });
const ActorId = Nullable(Type.Object({ type: Type.String(), id: Type.String() }, { additionalProperties: false }));
const entry = (properties: Record<string, TSchema>, description: string) =>
  Type.Array(Type.Object(properties, { additionalProperties: false }), { description });

/** The document, as the OpenAPI document describes it. */
export const ReaderExportDocument = Type.Object(
  {
    meta: Type.Object(
      {
        generatedAt: { ...Instant, description: 'When the export was made.' },
        user: Type.Object(
          { id: Id, attributes: UserAttributes },
          { description: 'The reader, as GET /users/{id} reads them.' },
        ),
        subscriptions: entry(
          { id: Id, ...SubscriptionAttributes.properties, product: Nullable(Type.String()) },
          'Every subscription, by id.',
        ),
        holds: entry(
          { id: Id, subscription: Id, ...HoldAttributes.properties },
          'Every hold of every subscription, withdrawn ones too, by id.',
        ),
        temporaryAddresses: entry({ id: Id, ...TemporaryAddressAttributes.properties }, 'By id.'),
        deliveryComplaints: entry(
          { id: Id, subscription: Id, ...DeliveryComplaintAttributes.properties },
          'Every complaint of every subscription, by id.',
        ),
        seats: entry(
          {
            id: Id,
            licence: { ...Id, description: 'The site licence (a subscription) the seat is of.' },
            licenceOwner: { ...Id, description: 'The user whose licence it is.' },
          },
          'The seats of site licences the reader holds, by id.',
        ),
        newsletterConsents: entry(
          {
            newsletter: Id,
            state: StringEnum(CONSENT_STATES),
            source: StringEnum(CONSENT_SOURCES),
            changedAt: Instant,
            history: entry(
              {
                state: StringEnum(CONSENT_STATES),
                source: StringEnum(CONSENT_SOURCES),
                changedAt: Instant,
                actor: ActorId,
              },
              'Every change, oldest first.',
            ),
          },
          'One per newsletter the reader ever had, by newsletter id, each with its history.',
        ),
        signIns: entry({ at: Instant }, 'When the reader signed in, as the audit trail keeps it (oldest first).'),
        confirmationRequests: entry(
          { at: Instant, newsletter: Id },
          'When a link to confirm a newsletter consent was issued for the reader: times only, never the link.',
        ),
        passwordResets: entry(
          {
            at: Instant,
            action: StringEnum(['issued', 'voided'] as const),
          },
          'When a password reset token was issued or voided: times only, never a token.',
        ),
        privacyRequests: entry(
          { id: Id, ...PrivacyRequestAttributes.properties },
          'The privacy requests about the reader, by id.',
        ),
        auditEntries: entry(
          {
            id: Id,
            occurredAt: Instant,
            action: Type.String(),
            resourceType: Type.String(),
            resourceId: Type.String(),
            eventType: Nullable(Type.String()),
            changed: Type.Array(Type.String(), { description: 'The names of the attributes sent; never values.' }),
            consent: Type.Optional(ConsentTransitionSchema),
            actor: ActorId,
          },
          'Every entry of the audit trail about the reader, oldest first.',
        ),
        webhookDeliveries: entry(
          {
            id: Id,
            webhook: Id,
            event: Id,
            eventType: Type.String(),
            state: Type.String(),
            createdAt: Instant,
            deliveredAt: Nullable(Instant),
          },
          'The webhook deliveries of the events about the reader: ids and times, by event.',
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** The export of a reader, or undefined when there is no such reader (nothing read past that). */
export async function readerExport(
  store: Store,
  userId: string,
  options: ReaderExportOptions,
): Promise<ReaderExport | undefined> {
  const user = await store.users.get(userId);
  if (!user) return undefined;
  return { writeTo: (out) => writeReaderExport(store, user, out, options) };
}

/** One page of a section: its records, and the key to go on after (undefined: the last page). */
interface Page<T> {
  items: readonly T[];
  next: string | undefined;
}

async function writeReaderExport(store: Store, user: StoredUser, out: Writable, options: ReaderExportOptions) {
  const size = options.pageSize ?? READER_EXPORT_PAGE_SIZE;
  const { now } = options;
  const today = dateAt(now, options.zone);
  const userId = user.id;
  /** A page by id of what `read` answers for a page query, fetched one long to know if another follows. */
  const byId =
    <T extends { id: string }>(read: (query: { afterId?: string; limit: number }) => Promise<T[] | undefined>) =>
    async (afterId: string | undefined): Promise<Page<T>> => {
      const items = (await read({ ...(afterId === undefined ? {} : { afterId }), limit: size })) ?? [];
      return { items, next: items.length === size ? items.at(-1)?.id : undefined };
    };
  const audit = (filter: { eventTypes?: string[]; resourceType?: string }) =>
    byId((page) => store.audit.list({ ...page, ...filter, userId }));

  await write(out, `{"meta":{"generatedAt":${JSON.stringify(formatInstant(now))}`);
  const attributes = toUserAttributes(user.email, user.fields, user.newsletters, user.lastSignInAt);
  await write(out, `,"user":${JSON.stringify({ id: userId, attributes })}`);
  await section(
    out,
    'subscriptions',
    byId((page) => store.subscriptions.list(userId, page)),
    (s) => ({ id: s.id, ...toSubscriptionAttributes(s, now), product: s.productId }),
  );
  await section(
    out,
    'holds',
    byId((page) => store.readerData.listHolds(userId, page)),
    (h) => ({ id: h.id, subscription: h.subscriptionId, ...toHoldAttributes(h, today) }),
  );
  await section(
    out,
    'temporaryAddresses',
    byId((page) => store.temporaryAddresses.list(userId, page)),
    (t) => ({ id: t.id, ...toTemporaryAddressAttributes(t, today) }),
  );
  await section(
    out,
    'deliveryComplaints',
    byId((page) => store.readerData.listDeliveryComplaints(userId, page)),
    (c) => ({ id: c.id, subscription: c.subscriptionId, ...toDeliveryComplaintAttributes(c) }),
  );
  await section(
    out,
    'seats',
    byId((page) => store.seats.listHeld(userId, page)),
    (s) => ({ id: s.id, licence: s.subscriptionId, licenceOwner: s.ownerId }),
  );
  await writeConsents(store, out, userId, size);
  await section(out, 'signIns', audit({ eventTypes: ['user.signed_in'] }), (e) => ({
    at: formatInstant(e.occurredAt),
  }));
  await section(out, 'confirmationRequests', audit({ resourceType: CONFIRMATION_LINKS }), (e) => ({
    at: formatInstant(e.occurredAt),
    newsletter: e.resourceId,
  }));
  await section(out, 'passwordResets', audit({ resourceType: 'password-reset-tokens' }), (e) => ({
    at: formatInstant(e.occurredAt),
    action: e.action === 'create' ? 'issued' : 'voided',
  }));
  await section(
    out,
    'privacyRequests',
    byId((page) => store.privacyRequests.list({ ...page, userId })),
    (r) => ({ id: r.id, ...toPrivacyRequestAttributes(r) }),
  );
  await section(out, 'auditEntries', audit({}), auditEntry);
  await section(
    out,
    'webhookDeliveries',
    async (afterId) => {
      const { deliveries, readTo } = await store.readerData.listWebhookDeliveries(userId, {
        ...(afterId === undefined ? {} : { afterId }),
        limit: size,
      });
      return { items: deliveries, next: readTo };
    },
    (d) => ({
      id: d.id,
      webhook: d.webhookId,
      event: d.eventId,
      eventType: d.eventType,
      state: d.state,
      createdAt: formatMilliseconds(d.createdAt),
      deliveredAt: d.deliveredAt === null ? null : formatMilliseconds(d.deliveredAt),
    }),
  );
  await write(out, '}}\n');
}

/** The consents by newsletter id, each with its history paged in turn inside it. */
async function writeConsents(store: Store, out: Writable, userId: string, size: number) {
  await write(out, ',"newsletterConsents":[');
  let afterId: string | undefined;
  let first = true;
  for (;;) {
    const consents =
      (await store.consents.list(userId, { ...(afterId === undefined ? {} : { afterId }), limit: size })) ?? [];
    for (const consent of consents) {
      const head = JSON.stringify({
        newsletter: consent.newsletterId,
        state: consent.state,
        source: consent.source,
        changedAt: formatInstant(consent.changedAt),
      });
      await write(out, `${first ? '' : ','}${head.slice(0, -1)}`);
      first = false;
      await section(
        out,
        'history',
        async (after) => {
          const changes =
            (await store.consents.listChanges(userId, consent.newsletterId, {
              ...(after === undefined ? {} : { afterId: after }),
              limit: size,
            })) ?? [];
          return { items: changes, next: changes.length === size ? changes.at(-1)?.id : undefined };
        },
        (c) => ({
          state: c.state,
          source: c.source,
          changedAt: formatInstant(c.changedAt),
          actor: actorId(c.actor),
        }),
      );
      await write(out, '}');
    }
    if (consents.length < size) break;
    afterId = consents.at(-1)?.newsletterId;
  }
  await write(out, ']');
}

/**
 * Writes `,"name":[…]`, one page at a time: each page read, then written out whole (one chunk),
 * before the next is read.
 */
async function section<T>(
  out: Writable,
  name: string,
  read: (after: string | undefined) => Promise<Page<T>>,
  render: (item: T) => unknown,
): Promise<void> {
  await write(out, `,${JSON.stringify(name)}:[`);
  let after: string | undefined;
  let first = true;
  do {
    const page = await read(after);
    if (page.items.length > 0) {
      await write(out, (first ? '' : ',') + page.items.map((item) => JSON.stringify(render(item))).join(','));
      first = false;
    }
    after = page.next;
  } while (after !== undefined);
  await write(out, ']');
}

function auditEntry(e: AuditEvent) {
  return {
    id: e.id,
    occurredAt: formatInstant(e.occurredAt),
    action: e.action,
    resourceType: e.resourceType,
    resourceId: e.resourceId,
    eventType: e.eventType,
    changed: e.attributes,
    ...(e.consent === null ? {} : { consent: e.consent }),
    actor: actorId(e.actor),
  };
}

/** Who made a change, by kind and id (never a name: the publisher's staff are not the reader's data). */
const actorId = actorOf;

/**
 * Writes a chunk, waiting for the stream to drain when its buffer is full; throws once the stream
 * has closed (a client that went away), so that no more is read for it.
 */
async function write(out: Writable, chunk: string): Promise<void> {
  if (out.destroyed) throw new Error('the export was left unfinished: its output closed');
  if (out.write(chunk)) return;
  await new Promise<void>((resolve, reject) => {
    const drained = () => {
      out.off('close', closed);
      resolve();
    };
    const closed = () => {
      out.off('drain', drained);
      reject(new Error('the export was left unfinished: its output closed'));
    };
    out.once('drain', drained);
    out.once('close', closed);
  });
}
