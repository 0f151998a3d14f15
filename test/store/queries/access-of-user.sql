-- SQLite
SELECT s.id, s.product_id, s.date_ended, coalesce(s.resource, (SELECT p.resource FROM products p WHERE p.id = s.product_id)) AS resource
FROM subscriptions s
WHERE s.user_id = ? AND s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)
-- ? = "42"
-- ? = 1796083200
-- ? = 1796083200;

-- PostgreSQL
SELECT s.id, s.product_id, s.date_ended, coalesce(s.resource, (SELECT p.resource FROM products p WHERE p.id = s.product_id)) AS resource
FROM subscriptions s
WHERE s.user_id = $1 AND s.expired = false AND s.date_started <= $2 AND (s.date_ended IS NULL OR s.date_ended > $3)
-- $1 = "42"
-- $2 = 1796083200
-- $3 = 1796083200;
