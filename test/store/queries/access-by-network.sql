-- SQLite
SELECT DISTINCT s.id, s.user_id, s.product_id, s.date_ended, coalesce(s.resource, (SELECT p.resource FROM products p WHERE p.id = s.product_id)) AS resource
FROM site_ranges r
JOIN subscriptions s ON s.user_id = r.user_id AND s.id = r.subscription_id
WHERE (r.prefix_length, r.network) IN ((8, ?), (9, ?), (10, ?), (11, ?), (12, ?), (13, ?), (14, ?), (15, ?), (16, ?), (17, ?), (18, ?), (19, ?), (20, ?), (21, ?), (22, ?), (23, ?), (24, ?), (25, ?), (26, ?), (27, ?), (28, ?), (29, ?), (30, ?), (31, ?), (32, ?)) AND s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)
-- ? = x'0a000000'
-- ? = x'0a000000'
-- ? = x'0a000000'
-- ? = x'0a000000'
-- ? = x'0a000000'
-- ? = x'0a000000'
-- ? = x'0a000000'
-- ? = x'0a000000'
-- ? = x'0a010000'
-- ? = x'0a010000'
-- ? = x'0a010000'
-- ? = x'0a010000'
-- ? = x'0a010000'
-- ? = x'0a010000'
-- ? = x'0a010000'
-- ? = x'0a010200'
-- ? = x'0a010200'
-- ? = x'0a010200'
-- ? = x'0a010200'
-- ? = x'0a010200'
-- ? = x'0a010200'
-- ? = x'0a010200'
-- ? = x'0a010200'
-- ? = x'0a010202'
-- ? = x'0a010203'
-- ? = 1796083200
-- ? = 1796083200;

-- PostgreSQL
SELECT DISTINCT s.id, s.user_id, s.product_id, s.date_ended, coalesce(s.resource, (SELECT p.resource FROM products p WHERE p.id = s.product_id)) AS resource
FROM site_ranges r
JOIN subscriptions s ON s.user_id = r.user_id AND s.id = r.subscription_id
WHERE (r.prefix_length, r.network) IN ((8, $1), (9, $2), (10, $3), (11, $4), (12, $5), (13, $6), (14, $7), (15, $8), (16, $9), (17, $10), (18, $11), (19, $12), (20, $13), (21, $14), (22, $15), (23, $16), (24, $17), (25, $18), (26, $19), (27, $20), (28, $21), (29, $22), (30, $23), (31, $24), (32, $25)) AND s.expired = false AND s.date_started <= $26 AND (s.date_ended IS NULL OR s.date_ended > $27)
-- $1 = x'0a000000'
-- $2 = x'0a000000'
-- $3 = x'0a000000'
-- $4 = x'0a000000'
-- $5 = x'0a000000'
-- $6 = x'0a000000'
-- $7 = x'0a000000'
-- $8 = x'0a000000'
-- $9 = x'0a010000'
-- $10 = x'0a010000'
-- $11 = x'0a010000'
-- $12 = x'0a010000'
-- $13 = x'0a010000'
-- $14 = x'0a010000'
-- $15 = x'0a010000'
-- $16 = x'0a010200'
-- $17 = x'0a010200'
-- $18 = x'0a010200'
-- $19 = x'0a010200'
-- $20 = x'0a010200'
-- $21 = x'0a010200'
-- $22 = x'0a010200'
-- $23 = x'0a010200'
-- $24 = x'0a010202'
-- $25 = x'0a010203'
-- $26 = 1796083200
-- $27 = 1796083200;
