-- SQLite
SELECT s.id, s.user_id, s.date_started, s.date_ended, s.external_identifier, s.license, s.resource, s.trial, s.expired, s.product_id, s.delivery_days, s.ip_ranges, s.email_domains, s.seats, s.version
FROM subscriptions s
WHERE s.user_id = ? AND s.id > ? AND ((s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)))
ORDER BY s.id ASC
LIMIT ?
-- ? = "42"
-- ? = "7"
-- ? = 1796083200
-- ? = 1796083200
-- ? = 101;

-- PostgreSQL
SELECT s.id, s.user_id, s.date_started, s.date_ended, s.external_identifier, s.license, s.resource, s.trial, s.expired, s.product_id, s.delivery_days, s.ip_ranges, s.email_domains, s.seats, s.version
FROM subscriptions s
WHERE s.user_id = $1 AND s.id > $2 AND ((s.expired = false AND s.date_started <= $3 AND (s.date_ended IS NULL OR s.date_ended > $4)))
ORDER BY s.id ASC
LIMIT $5
-- $1 = "42"
-- $2 = "7"
-- $3 = "2026-12-01T00:00:00.000Z"
-- $4 = "2026-12-01T00:00:00.000Z"
-- $5 = 101;
