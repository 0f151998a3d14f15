-- SQLite
SELECT s.id, s.user_id, s.product_id, u.honorific_prefix, u.given_name, u.additional_name, u.family_name, u.honorific_suffix, CASE WHEN t.id IS NULL THEN u.address_street_address ELSE t.address_street_address END AS address_street_address, CASE WHEN t.id IS NULL THEN u.address_unit_number ELSE t.address_unit_number END AS address_unit_number, CASE WHEN t.id IS NULL THEN u.address_address_locality ELSE t.address_address_locality END AS address_address_locality, CASE WHEN t.id IS NULL THEN u.address_address_region ELSE t.address_address_region END AS address_address_region, CASE WHEN t.id IS NULL THEN u.address_address_country ELSE t.address_address_country END AS address_address_country, CASE WHEN t.id IS NULL THEN u.address_postal_code ELSE t.address_postal_code END AS address_postal_code, (CASE WHEN r.copies IS NULL THEN 1 ELSE r.copies + CASE WHEN s.date_started < ? AND (s.date_ended IS NULL OR s.date_ended > ?) AND (coalesce(s.delivery_days, 127) & 2) <> 0 AND (s.product_id IS NULL OR s.product_id NOT IN (SELECT id FROM products WHERE (coalesce(delivery_days, 127) & 2) = 0)) AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.user_id = s.user_id AND h.subscription_id = s.id AND h.start_date <= ? AND h.end_date >= ? AND h.withdrawn = false) THEN 1 ELSE 0 END END) AS copies, r.copies IS NOT NULL AS redelivery
FROM subscriptions s
JOIN users u ON u.id = s.user_id
LEFT JOIN temporary_addresses t ON t.user_id = s.user_id AND t.start_date <= ? AND t.end_date >= ?
LEFT JOIN (SELECT user_id, subscription_id, count(*) AS copies FROM delivery_complaints WHERE redelivery_date = ? GROUP BY user_id, subscription_id) r ON r.user_id = s.user_id AND r.subscription_id = s.id
WHERE s.gives_print = true AND s.expired = false AND (s.resource IN ('print', 'print-online') OR (s.resource IS NULL AND s.product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))) AND ((s.date_started < ? AND (s.date_ended IS NULL OR s.date_ended > ?) AND (coalesce(s.delivery_days, 127) & 2) <> 0 AND (s.product_id IS NULL OR s.product_id NOT IN (SELECT id FROM products WHERE (coalesce(delivery_days, 127) & 2) = 0)) AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.user_id = s.user_id AND h.subscription_id = s.id AND h.start_date <= ? AND h.end_date >= ? AND h.withdrawn = false)) OR s.id IN (SELECT c.subscription_id FROM delivery_complaints c WHERE c.redelivery_date = ?)) AND s.id > ? AND CASE WHEN t.id IS NULL THEN u.address_postal_code ELSE t.address_postal_code END = ?
ORDER BY s.id
LIMIT ?
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
-- ? = "10115"
-- ? = 101;

-- PostgreSQL
SELECT s.id, s.user_id, s.product_id, u.honorific_prefix, u.given_name, u.additional_name, u.family_name, u.honorific_suffix, CASE WHEN t.id IS NULL THEN u.address_street_address ELSE t.address_street_address END AS address_street_address, CASE WHEN t.id IS NULL THEN u.address_unit_number ELSE t.address_unit_number END AS address_unit_number, CASE WHEN t.id IS NULL THEN u.address_address_locality ELSE t.address_address_locality END AS address_address_locality, CASE WHEN t.id IS NULL THEN u.address_address_region ELSE t.address_address_region END AS address_address_region, CASE WHEN t.id IS NULL THEN u.address_address_country ELSE t.address_address_country END AS address_address_country, CASE WHEN t.id IS NULL THEN u.address_postal_code ELSE t.address_postal_code END AS address_postal_code, (CASE WHEN r.copies IS NULL THEN 1 ELSE r.copies + CASE WHEN s.date_started < $1 AND (s.date_ended IS NULL OR s.date_ended > $2) AND (coalesce(s.delivery_days, 127) & 2) <> 0 AND (s.product_id IS NULL OR s.product_id NOT IN (SELECT id FROM products WHERE (coalesce(delivery_days, 127) & 2) = 0)) AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.user_id = s.user_id AND h.subscription_id = s.id AND h.start_date <= $3 AND h.end_date >= $4 AND h.withdrawn = false) THEN 1 ELSE 0 END END) AS copies, r.copies IS NOT NULL AS redelivery
FROM subscriptions s
JOIN users u ON u.id = s.user_id
LEFT JOIN temporary_addresses t ON t.user_id = s.user_id AND t.start_date <= $5 AND t.end_date >= $6
LEFT JOIN (SELECT user_id, subscription_id, count(*) AS copies FROM delivery_complaints WHERE redelivery_date = $7 GROUP BY user_id, subscription_id) r ON r.user_id = s.user_id AND r.subscription_id = s.id
WHERE s.gives_print = true AND s.expired = false AND (s.resource IN ('print', 'print-online') OR (s.resource IS NULL AND s.product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))) AND ((s.date_started < $8 AND (s.date_ended IS NULL OR s.date_ended > $9) AND (coalesce(s.delivery_days, 127) & 2) <> 0 AND (s.product_id IS NULL OR s.product_id NOT IN (SELECT id FROM products WHERE (coalesce(delivery_days, 127) & 2) = 0)) AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.user_id = s.user_id AND h.subscription_id = s.id AND h.start_date <= $10 AND h.end_date >= $11 AND h.withdrawn = false)) OR EXISTS (SELECT 1 FROM delivery_complaints c WHERE c.user_id = s.user_id AND c.subscription_id = s.id AND c.redelivery_date = $12)) AND s.id > $13 AND CASE WHEN t.id IS NULL THEN u.address_postal_code ELSE t.address_postal_code END = $14
ORDER BY s.id
LIMIT $15
-- $1 = "2026-12-02T00:00:00.000Z"
-- $2 = "2026-12-01T00:00:00.000Z"
-- $3 = 20788
-- $4 = 20788
-- $5 = 20788
-- $6 = 20788
-- $7 = 20788
-- $8 = "2026-12-02T00:00:00.000Z"
-- $9 = "2026-12-01T00:00:00.000Z"
-- $10 = 20788
-- $11 = 20788
-- $12 = 20788
-- $13 = "7"
-- $14 = "10115"
-- $15 = 101;
