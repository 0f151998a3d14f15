/**
 * Webhooks and their deliveries on SQLite. The deliveries of each event are written by a trigger
 * on the audit trail (see migrations.ts); here they are listed, claimed and finished.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { Webhook, WebhookDelivery } from '../../domain/webhooks.js';
import type {
  ClaimedDelivery,
  DeliveryOutcome,
  DeliveryQuery,
  IfVersion,
  NewWebhook,
  WebhookChanges,
  WebhookStore,
} from '../port.js';
import type { Row } from '../sql/rows.js';
import {
  CLAIMED_DELIVERY_COLUMNS,
  DELIVERY_COLUMNS,
  deliveriesQuery,
  toClaimedDelivery,
  toWebhook,
  toWebhookDelivery,
  WEBHOOK_COLUMNS,
} from '../sql/webhooks.js';
import { requireVersion } from '../ports/versions.js';
import type { SqliteDatabase } from './database.js';

export function sqliteWebhooks(database: SqliteDatabase): WebhookStore {
  const { db } = database;

  const insert = db.prepare(
    `INSERT INTO webhooks (url, events, secret_salt) VALUES (?, ?, ?) RETURNING ${WEBHOOK_COLUMNS}`,
  );

  async function createWebhook(webhook: NewWebhook, audit: AuditContext): Promise<Webhook> {
    return db.transaction(() => {
      const created = toWebhook(insert.get(webhook.url, JSON.stringify(webhook.events), webhook.secretSalt) as Row);
      database.record(audit, { action: 'create', resourceType: 'webhooks', resourceId: created.id, userId: null });
      return created;
    })();
  }

  const selectOne = db.prepare(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`);

  async function getWebhook(id: string): Promise<Webhook | undefined> {
    const row = selectOne.get(id) as Row | undefined;
    return row && toWebhook(row);
  }

  const selectAll = db.prepare(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY id`);

  async function listWebhooks(): Promise<Webhook[]> {
    return (selectAll.all() as Row[]).map(toWebhook);
  }

  const update = db.prepare(`
    UPDATE webhooks SET url = @url, events = @events, version = version + 1, updated_at = unixepoch()
    WHERE id = @id RETURNING ${WEBHOOK_COLUMNS}`);

  async function updateWebhook(
    id: string,
    changes: WebhookChanges,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<Webhook | undefined> {
    return db
      .transaction(() => {
        const current = selectOne.get(id) as Row | undefined;
        if (!current) return undefined;
        const webhook = toWebhook(current);
        requireVersion(webhook.version, ifVersion);
        const row = update.get({
          id,
          url: changes.url ?? webhook.url,
          events: JSON.stringify(changes.events ?? webhook.events),
        }) as Row;
        database.record(audit, { action: 'update', resourceType: 'webhooks', resourceId: id, userId: null });
        return toWebhook(row);
      })
      .immediate();
  }

  const version = db.prepare('SELECT version FROM webhooks WHERE id = ?').pluck();
  const remove = db.prepare('DELETE FROM webhooks WHERE id = ?');

  async function deleteWebhook(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean> {
    return database.deleteRow({
      version,
      remove,
      keys: [id],
      ifVersion,
      record: () =>
        database.record(audit, { action: 'delete', resourceType: 'webhooks', resourceId: id, userId: null }),
    });
  }

  async function listWebhookDeliveries(webhookId: string, query: DeliveryQuery) {
    return db.transaction((): WebhookDelivery[] | undefined => {
      if (!selectOne.get(webhookId)) return undefined;
      return database.all(deliveriesQuery(webhookId, query)).map(toWebhookDelivery);
    })();
  }

  const due = db
    .prepare(
      `
    SELECT d.id FROM webhook_deliveries d
    WHERE d.state = 'pending' AND d.next_attempt_at <= @now AND (d.locked_until IS NULL OR d.locked_until <= @now)
      AND NOT EXISTS (
        SELECT 1 FROM webhook_deliveries e
        WHERE e.state = 'pending' AND e.webhook_id = d.webhook_id AND e.queue = d.queue
          AND e.event_id < d.event_id)
    ORDER BY d.next_attempt_at, d.id LIMIT @limit`,
    )
    .pluck();
  const lease = db.prepare(`
    UPDATE webhook_deliveries SET attempts = attempts + 1, locked_until = @until, last_attempt_at = @now,
      version = version + 1
    WHERE id = @id`);
  const selectClaimed = db.prepare(`
    SELECT ${CLAIMED_DELIVERY_COLUMNS} FROM webhook_deliveries d
    JOIN webhooks w ON w.id = d.webhook_id JOIN audit_log a ON a.id = d.event_id
    WHERE d.id = ?`);

  async function claimWebhookDeliveries(now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    // A look without the write lock first: most polls find nothing due.
    if (due.all({ now, limit: 1 }).length === 0) return [];
    return db
      .transaction(() =>
        (due.all({ now, limit }) as number[]).map((id) => {
          lease.run({ id, now, until: now + leaseMs });
          return toClaimedDelivery(selectClaimed.get(id) as Row);
        }),
      )
      .immediate();
  }

  const finish = db.prepare(`
    UPDATE webhook_deliveries SET state = @state, locked_until = NULL, next_attempt_at = @next_attempt_at,
      last_status = @status, last_error = @error,
      delivered_at = CASE WHEN @state = 'delivered' THEN @at ELSE delivered_at END, version = version + 1
    WHERE id = @id AND state = 'pending' AND version = @version
    RETURNING webhook_id, queue, event_id`);
  const holdBackQueue = db.prepare(`
    UPDATE webhook_deliveries SET next_attempt_at = @next_attempt_at
    WHERE webhook_id = @webhook_id AND queue = @queue AND state = 'pending' AND event_id > @event_id
      AND next_attempt_at < @next_attempt_at`);

  async function finishWebhookDelivery(id: string, claimedVersion: number, outcome: DeliveryOutcome) {
    return db.transaction(() => {
      const queue = finish.get({
        id,
        version: claimedVersion,
        state: outcome.state,
        at: outcome.at,
        next_attempt_at: outcome.nextAttemptAt,
        status: outcome.status,
        error: outcome.error,
      }) as Row | undefined;
      if (!queue) return false;
      if (outcome.nextAttemptAt !== null) holdBackQueue.run({ ...queue, next_attempt_at: outcome.nextAttemptAt });
      return true;
    })();
  }

  const selectDelivery = db.prepare(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND id = ?`,
  );

  async function getWebhookDelivery(webhookId: string, id: string): Promise<WebhookDelivery | undefined> {
    const row = selectDelivery.get(webhookId, id) as Row | undefined;
    return row && toWebhookDelivery(row);
  }

  const redeliver = db.prepare(`
    UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = @now, locked_until = NULL,
      delivered_at = NULL, version = version + 1
    WHERE webhook_id = @webhook_id AND id = @id AND state <> 'pending'`);

  async function redeliverWebhookDelivery(webhookId: string, id: string, now: number) {
    redeliver.run({ webhook_id: webhookId, id, now });
    return getWebhookDelivery(webhookId, id);
  }

  return {
    create: createWebhook,
    get: getWebhook,
    list: listWebhooks,
    update: updateWebhook,
    delete: deleteWebhook,
    listDeliveries: listWebhookDeliveries,
    claimDeliveries: claimWebhookDeliveries,
    finishDelivery: finishWebhookDelivery,
    getDelivery: getWebhookDelivery,
    redeliver: redeliverWebhookDelivery,
  };
}
