-- SQLite
SELECT s.product_id, CASE WHEN t.id IS NULL THEN u.address_postal_code ELSE t.address_postal_code END AS postal_code, count(*) AS copies
FROM subscriptions s
JOIN users u ON u.id = s.user_id
LEFT JOIN temporary_addresses t ON t.user_id = s.user_id AND t.start_date <= ? AND t.end_date >= ?
WHERE s.gives_print = true AND s.expired = false AND (s.resource IN ('print', 'print-online') OR (s.resource IS NULL AND s.product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))) AND s.date_started < ? AND (s.date_ended IS NULL OR s.date_ended > ?) AND (coalesce(s.delivery_days, 127) & 2) <> 0 AND (s.product_id IS NULL OR s.product_id NOT IN (SELECT id FROM products WHERE (coalesce(delivery_days, 127) & 2) = 0)) AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.user_id = s.user_id AND h.subscription_id = s.id AND h.start_date <= ? AND h.end_date >= ? AND h.withdrawn = false)
GROUP BY s.product_id, CASE WHEN t.id IS NULL THEN u.address_postal_code ELSE t.address_postal_code END
-- ? = 20788
-- ? = 20788
-- ? = 1796169600
-- ? = 1796083200
-- ? = 20788
-- ? = 20788;

SELECT s.product_id, CASE WHEN t.id IS NULL THEN u.address_postal_code ELSE t.address_postal_code END AS postal_code, sum(r.copies) AS copies
FROM subscriptions s
JOIN users u ON u.id = s.user_id
LEFT JOIN temporary_addresses t ON t.user_id = s.user_id AND t.start_date <= ? AND t.end_date >= ?
LEFT JOIN (SELECT user_id, subscription_id, count(*) AS copies FROM delivery_complaints WHERE redelivery_date = ? GROUP BY user_id, subscription_id) r ON r.user_id = s.user_id AND r.subscription_id = s.id
WHERE s.gives_print = true AND s.expired = false AND (s.resource IN ('print', 'print-online') OR (s.resource IS NULL AND s.product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))) AND r.copies IS NOT NULL
GROUP BY s.product_id, CASE WHEN t.id IS NULL THEN u.address_postal_code ELSE t.address_postal_code END
-- ? = 20788
-- ? = 20788
-- ? = 20788;

-- PostgreSQL
SELECT s.product_id, CASE WHEN t.id IS NULL THEN u.address_postal_code ELSE t.address_postal_code END AS postal_code, count(*) AS copies
FROM subscriptions s
JOIN users u ON u.id = s.user_id
LEFT JOIN temporary_addresses t ON t.user_id = s.user_id AND t.start_date <= $1 AND t.end_date >= $2
WHERE s.gives_print = true AND s.expired = false AND (s.resource IN ('print', 'print-online') OR (s.resource IS NULL AND s.product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))) AND s.date_started < $3 AND (s.date_ended IS NULL OR s.date_ended > $4) AND (coalesce(s.delivery_days, 127) & 2) <> 0 AND (s.product_id IS NULL OR s.product_id NOT IN (SELECT id FROM products WHERE (coalesce(delivery_days, 127) & 2) = 0)) AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.user_id = s.user_id AND h.subscription_id = s.id AND h.start_date <= $5 AND h.end_date >= $6 AND h.withdrawn = false)
GROUP BY s.product_id, CASE WHEN t.id IS NULL THEN u.address_postal_code ELSE t.address_postal_code END
-- $1 = 20788
-- $2 = 20788
-- $3 = "2026-12-02T00:00:00.000Z"
-- $4 = "2026-12-01T00:00:00.000Z"
-- $5 = 20788
-- $6 = 20788;

SELECT s.product_id, CASE WHEN t.id IS NULL THEN u.address_postal_code ELSE t.address_postal_code END AS postal_code, sum(r.copies) AS copies
FROM subscriptions s
JOIN users u ON u.id = s.user_id
LEFT JOIN temporary_addresses t ON t.user_id = s.user_id AND t.start_date <= $1 AND t.end_date >= $2
LEFT JOIN (SELECT user_id, subscription_id, count(*) AS copies FROM delivery_complaints WHERE redelivery_date = $3 GROUP BY user_id, subscription_id) r ON r.user_id = s.user_id AND r.subscription_id = s.id
WHERE s.gives_print = true AND s.expired = false AND (s.resource IN ('print', 'print-online') OR (s.resource IS NULL AND s.product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))) AND r.copies IS NOT NULL
GROUP BY s.product_id, CASE WHEN t.id IS NULL THEN u.address_postal_code ELSE t.address_postal_code END
-- $1 = 20788
-- $2 = 20788
-- $3 = 20788;
