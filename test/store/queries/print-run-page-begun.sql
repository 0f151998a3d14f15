-- SQLite
SELECT s.id, concat('{"type":"deliveries","id":"', CAST(? AS TEXT), '.', CAST(s.id AS TEXT), '","attributes":{"date":"', CAST(? AS TEXT), '","address":{"streetAddress":', json_quote(CASE WHEN t.id IS NULL THEN u.address_street_address ELSE t.address_street_address END), ',"unitNumber":', json_quote(CASE WHEN t.id IS NULL THEN u.address_unit_number ELSE t.address_unit_number END), ',"addressLocality":', json_quote(CASE WHEN t.id IS NULL THEN u.address_address_locality ELSE t.address_address_locality END), ',"addressRegion":', json_quote(CASE WHEN t.id IS NULL THEN u.address_address_region ELSE t.address_address_region END), ',"addressCountry":', json_quote(CASE WHEN t.id IS NULL THEN u.address_address_country ELSE t.address_address_country END), ',"postalCode":', json_quote(CASE WHEN t.id IS NULL THEN u.address_postal_code ELSE t.address_postal_code END), '},"redelivery":', CASE WHEN r.copies IS NULL THEN 'false' ELSE 'true' END, ',"copies":', CAST((CASE WHEN r.copies IS NULL THEN 1 ELSE r.copies + CASE WHEN s.date_started < ? AND (s.date_ended IS NULL OR s.date_ended > ?) AND (coalesce(s.delivery_days, 127) & 2) <> 0 AND (s.product_id IS NULL OR s.product_id NOT IN (SELECT id FROM products WHERE (coalesce(delivery_days, 127) & 2) = 0)) AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.user_id = s.user_id AND h.subscription_id = s.id AND h.start_date <= ? AND h.end_date >= ? AND h.withdrawn = false) THEN 1 ELSE 0 END END) AS TEXT), '},"relationships":{"user":{"data":{"type":"users","id":"', CAST(s.user_id AS TEXT), '"}},"subscription":{"data":{"type":"subscriptions","id":"', CAST(s.id AS TEXT), '"}},"product":{"data":', CASE WHEN s.product_id IS NULL THEN 'null' ELSE '{"type":"products","id":' || json_quote(s.product_id) || '}' END, '}}}') AS json
FROM subscriptions s
JOIN users u ON u.id = s.user_id
LEFT JOIN temporary_addresses t ON t.user_id = s.user_id AND t.start_date <= ? AND t.end_date >= ?
LEFT JOIN (SELECT user_id, subscription_id, count(*) AS copies FROM delivery_complaints WHERE redelivery_date = ? GROUP BY user_id, subscription_id) r ON r.user_id = s.user_id AND r.subscription_id = s.id
WHERE (s.resource IN ('print', 'print-online') OR (s.resource IS NULL AND s.product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))) AND ((s.date_started < ? AND (s.date_ended IS NULL OR s.date_ended > ?) AND (coalesce(s.delivery_days, 127) & 2) <> 0 AND (s.product_id IS NULL OR s.product_id NOT IN (SELECT id FROM products WHERE (coalesce(delivery_days, 127) & 2) = 0)) AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.user_id = s.user_id AND h.subscription_id = s.id AND h.start_date <= ? AND h.end_date >= ? AND h.withdrawn = false)) OR s.id IN (SELECT c.subscription_id FROM delivery_complaints c WHERE c.redelivery_date = ?)) AND s.id > ?
ORDER BY s.id
LIMIT ?
-- ? = "2026-12-01"
-- ? = "2026-12-01"
-- ? = 1796169600
-- ? = 1796083200
-- ? = 20788
-- ? = 20788
-- ? = 20788
-- ? = 20788
-- ? = 20788
-- ? = 1796169600
-- ? = 1796083200
-- ? = 20788
-- ? = 20788
-- ? = 20788
-- ? = "7"
-- ? = 101;

-- PostgreSQL
SELECT s.id, '{"type":"deliveries","id":"' || CAST($1 AS TEXT) || '.' || CAST(s.id AS TEXT) || '","attributes":{"date":"' || CAST($2 AS TEXT) || '","address":{"streetAddress":' || coalesce(to_json(CASE WHEN t.id IS NULL THEN u.address_street_address ELSE t.address_street_address END)::text, 'null') || ',"unitNumber":' || coalesce(to_json(CASE WHEN t.id IS NULL THEN u.address_unit_number ELSE t.address_unit_number END)::text, 'null') || ',"addressLocality":' || coalesce(to_json(CASE WHEN t.id IS NULL THEN u.address_address_locality ELSE t.address_address_locality END)::text, 'null') || ',"addressRegion":' || coalesce(to_json(CASE WHEN t.id IS NULL THEN u.address_address_region ELSE t.address_address_region END)::text, 'null') || ',"addressCountry":' || coalesce(to_json(CASE WHEN t.id IS NULL THEN u.address_address_country ELSE t.address_address_country END)::text, 'null') || ',"postalCode":' || coalesce(to_json(CASE WHEN t.id IS NULL THEN u.address_postal_code ELSE t.address_postal_code END)::text, 'null') || '},"redelivery":' || CASE WHEN r.copies IS NULL THEN 'false' ELSE 'true' END || ',"copies":' || CAST((CASE WHEN r.copies IS NULL THEN 1 ELSE r.copies + CASE WHEN s.date_started < $3 AND (s.date_ended IS NULL OR s.date_ended > $4) AND (coalesce(s.delivery_days, 127) & 2) <> 0 AND (s.product_id IS NULL OR s.product_id NOT IN (SELECT id FROM products WHERE (coalesce(delivery_days, 127) & 2) = 0)) AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.user_id = s.user_id AND h.subscription_id = s.id AND h.start_date <= $5 AND h.end_date >= $6 AND h.withdrawn = false) THEN 1 ELSE 0 END END) AS TEXT) || '},"relationships":{"user":{"data":{"type":"users","id":"' || CAST(s.user_id AS TEXT) || '"}},"subscription":{"data":{"type":"subscriptions","id":"' || CAST(s.id AS TEXT) || '"}},"product":{"data":' || CASE WHEN s.product_id IS NULL THEN 'null' ELSE '{"type":"products","id":' || coalesce(to_json(s.product_id)::text, 'null') || '}' END || '}}}' AS json
FROM subscriptions s
JOIN users u ON u.id = s.user_id
LEFT JOIN temporary_addresses t ON t.user_id = s.user_id AND t.start_date <= $7 AND t.end_date >= $8
LEFT JOIN (SELECT user_id, subscription_id, count(*) AS copies FROM delivery_complaints WHERE redelivery_date = $9 GROUP BY user_id, subscription_id) r ON r.user_id = s.user_id AND r.subscription_id = s.id
WHERE (s.resource IN ('print', 'print-online') OR (s.resource IS NULL AND s.product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))) AND ((s.date_started < $10 AND (s.date_ended IS NULL OR s.date_ended > $11) AND (coalesce(s.delivery_days, 127) & 2) <> 0 AND (s.product_id IS NULL OR s.product_id NOT IN (SELECT id FROM products WHERE (coalesce(delivery_days, 127) & 2) = 0)) AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.user_id = s.user_id AND h.subscription_id = s.id AND h.start_date <= $12 AND h.end_date >= $13 AND h.withdrawn = false)) OR EXISTS (SELECT 1 FROM delivery_complaints c WHERE c.user_id = s.user_id AND c.subscription_id = s.id AND c.redelivery_date = $14)) AND s.id > $15
ORDER BY s.id
LIMIT $16
-- $1 = "2026-12-01"
-- $2 = "2026-12-01"
-- $3 = "2026-12-02T00:00:00.000Z"
-- $4 = "2026-12-01T00:00:00.000Z"
-- $5 = 20788
-- $6 = 20788
-- $7 = 20788
-- $8 = 20788
-- $9 = 20788
-- $10 = "2026-12-02T00:00:00.000Z"
-- $11 = "2026-12-01T00:00:00.000Z"
-- $12 = 20788
-- $13 = 20788
-- $14 = 20788
-- $15 = "7"
-- $16 = 101;
