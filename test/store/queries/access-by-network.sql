-- SQLite
SELECT s.id, s.user_id, s.product_id, s.date_ended, coalesce(s.resource, (SELECT p.resource FROM products p WHERE p.id = s.product_id)) AS resource
FROM (SELECT r.user_id, r.subscription_id FROM site_ranges r WHERE r.prefix_length = 16 + 0 AND r.network = ? UNION ALL SELECT r.user_id, r.subscription_id FROM site_ranges r WHERE r.prefix_length = 24 + 0 AND r.network = ? UNION ALL SELECT r.user_id, r.subscription_id FROM site_ranges r WHERE r.prefix_length = 32 + 0 AND r.network = ?) r
JOIN subscriptions s ON s.user_id = r.user_id AND s.id = r.subscription_id
WHERE s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)
-- ? = x'0a010000'
-- ? = x'0a010200'
-- ? = x'0a010203'
-- ? = 1796083200
-- ? = 1796083200;

-- PostgreSQL
SELECT s.id, s.user_id, s.product_id, s.date_ended, coalesce(s.resource, (SELECT p.resource FROM products p WHERE p.id = s.product_id)) AS resource
FROM (VALUES (16, $1::bytea), (24, $2::bytea), (32, $3::bytea)) k (prefix_length, network)
JOIN site_ranges r ON r.prefix_length = k.prefix_length AND r.network = k.network
JOIN subscriptions s ON s.user_id = r.user_id AND s.id = r.subscription_id
WHERE s.expired = false AND s.date_started <= $4 AND (s.date_ended IS NULL OR s.date_ended > $5)
-- $1 = x'0a010000'
-- $2 = x'0a010200'
-- $3 = x'0a010203'
-- $4 = 1796083200
-- $5 = 1796083200;
