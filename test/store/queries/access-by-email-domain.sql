-- SQLite
SELECT DISTINCT s.id, s.user_id, s.product_id, s.date_ended, coalesce(s.resource, (SELECT p.resource FROM products p WHERE p.id = s.product_id)) AS resource
FROM site_domains d
JOIN subscriptions s ON s.user_id = d.user_id AND s.id = d.subscription_id
WHERE d.domain IN (SELECT value FROM json_each(?)) AND s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)
-- ? = ["example.ac.uk"]
-- ? = 1796083200
-- ? = 1796083200;

-- PostgreSQL
SELECT DISTINCT s.id, s.user_id, s.product_id, s.date_ended, coalesce(s.resource, (SELECT p.resource FROM products p WHERE p.id = s.product_id)) AS resource
FROM site_domains d
JOIN subscriptions s ON s.user_id = d.user_id AND s.id = d.subscription_id
WHERE d.domain = ANY ($1::text[]) AND s.expired = false AND s.date_started <= $2 AND (s.date_ended IS NULL OR s.date_ended > $3)
-- $1 = ["example.ac.uk"]
-- $2 = 1796083200
-- $3 = 1796083200;
