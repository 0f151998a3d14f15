/**
 * Webhooks and their deliveries on PostgreSQL. The deliveries of each event are written by a
 * trigger on the audit trail (see migrations.ts); here they are listed, claimed and finished.
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
import { sql } from '../sql/builder.js';
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
import { auditInsert, versionCondition, type PostgresDatabase } from './database.js';

export function postgresWebhooks(database: PostgresDatabase): WebhookStore {
  async function createWebhook(webhook: NewWebhook, audit: AuditContext): Promise<Webhook> {
    const params: unknown[] = [webhook.url, webhook.events, webhook.secretSalt];
    const record = auditInsert(params, audit, {
      action: 'create',
      resourceType: 'webhooks',
      userIdColumn: 'NULL',
      from: 'w',
    });
    const [row] = await database.rows(
      `WITH w AS (
         INSERT INTO webhooks (url, events, secret_salt) VALUES ($1, $2, $3) RETURNING ${WEBHOOK_COLUMNS}
       ), a AS (${record})
       SELECT * FROM w`,
      params,
    );
    return toWebhook(row as Row);
  }

  async function getWebhook(id: string): Promise<Webhook | undefined> {
    const [row] = await database.rows(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1`, [id]);
    return row && toWebhook(row);
  }

  async function listWebhooks(): Promise<Webhook[]> {
    return (await database.rows(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY id`)).map(toWebhook);
  }

  async function updateWebhook(
    id: string,
    changes: WebhookChanges,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<Webhook | undefined> {
    const params: unknown[] = [id, changes.url ?? null, changes.events ?? null];
    const condition = versionCondition(params, ifVersion);
    const record = auditInsert(params, audit, {
      action: 'update',
      resourceType: 'webhooks',
      userIdColumn: 'NULL',
      from: 'w',
    });
    const [row] = await database.rows(
      `WITH w AS (
         UPDATE webhooks SET url = coalesce($2, url), events = coalesce($3::text[], events),
           version = version + 1, updated_at = now()
         WHERE id = $1 ${condition} RETURNING ${WEBHOOK_COLUMNS}
       ), a AS (${record})
       SELECT * FROM w`,
      params,
    );
    if (row) return toWebhook(row);
    await database.refusedOrMissing('webhooks', 'id = $1', [id], ifVersion);
    return undefined;
  }

  async function deleteWebhook(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean> {
    return database.deleteRow({
      table: 'webhooks',
      where: 'id = $1',
      keys: [id],
      userIdColumn: 'NULL',
      audit,
      ifVersion,
    });
  }

  async function listWebhookDeliveries(webhookId: string, query: DeliveryQuery) {
    // The webhook's row comes first, so that "no such webhook" and "no deliveries" differ.
    const rows = await database.rows(
      sql`SELECT w.id AS owner, d.* FROM webhooks w
          LEFT JOIN LATERAL (${deliveriesQuery(webhookId, query)}) d ON true
          WHERE w.id = ${webhookId}`,
    );
    if (rows.length === 0) return undefined;
    return rows.filter((r) => r.id !== null).map(toWebhookDelivery);
  }

  async function claimWebhookDeliveries(now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    // SKIP LOCKED: dispatchers claiming at once take different deliveries; the lease then keeps
    // a delivery from a second dispatcher while its attempt runs, after this statement commits.
    const rows = await database.rows(
      `WITH due AS (
         SELECT d.id FROM webhook_deliveries d
         WHERE d.state = 'pending' AND d.next_attempt_at <= $1 AND (d.locked_until IS NULL OR d.locked_until <= $1)
           AND NOT EXISTS (
             SELECT 1 FROM webhook_deliveries e
             WHERE e.state = 'pending' AND e.webhook_id = d.webhook_id AND e.queue = d.queue
               AND e.event_id < d.event_id)
         ORDER BY d.next_attempt_at, d.id LIMIT $3
         FOR UPDATE SKIP LOCKED
       ), d AS (
         UPDATE webhook_deliveries d SET attempts = d.attempts + 1, locked_until = $1 + $2, last_attempt_at = $1,
           version = d.version + 1
         FROM due WHERE d.id = due.id
         RETURNING d.*
       )
       SELECT ${CLAIMED_DELIVERY_COLUMNS} FROM d
       JOIN webhooks w ON w.id = d.webhook_id JOIN audit_log a ON a.id = d.event_id
       ORDER BY d.next_attempt_at, d.id`,
      [now, leaseMs, limit],
    );
    return rows.map(toClaimedDelivery);
  }

  async function finishWebhookDelivery(id: string, claimedVersion: number, outcome: DeliveryOutcome) {
    const [row] = await database.rows(
      `WITH f AS (
         UPDATE webhook_deliveries SET state = $2, locked_until = NULL, next_attempt_at = $3, last_status = $4,
           last_error = $5, delivered_at = CASE WHEN $2 = 'delivered' THEN $6 ELSE delivered_at END,
           version = version + 1
         WHERE id = $1 AND state = 'pending' AND version = $7
         RETURNING webhook_id, queue, event_id
       ), held AS (
         UPDATE webhook_deliveries q SET next_attempt_at = $3
         FROM f WHERE $3::bigint IS NOT NULL AND q.webhook_id = f.webhook_id AND q.queue = f.queue
           AND q.state = 'pending' AND q.event_id > f.event_id AND q.next_attempt_at < $3
       )
       SELECT count(*)::int AS n FROM f`,
      [id, outcome.state, outcome.nextAttemptAt, outcome.status, outcome.error, outcome.at, claimedVersion],
    );
    return row?.n === 1;
  }

  async function getWebhookDelivery(webhookId: string, id: string): Promise<WebhookDelivery | undefined> {
    const [row] = await database.rows(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND id = $2`,
      [webhookId, id],
    );
    return row && toWebhookDelivery(row);
  }

  async function redeliverWebhookDelivery(webhookId: string, id: string, now: number) {
    const [row] = await database.rows(
      `WITH r AS (
         UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = $3, locked_until = NULL,
           delivered_at = NULL, version = version + 1
         WHERE webhook_id = $1 AND id = $2 AND state <> 'pending'
         RETURNING ${DELIVERY_COLUMNS}
       )
       SELECT * FROM r UNION ALL
       SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND id = $2 AND NOT EXISTS (SELECT 1 FROM r)`,
      [webhookId, id, now],
    );
    return row && toWebhookDelivery(row);
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
