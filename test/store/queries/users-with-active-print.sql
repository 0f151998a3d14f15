-- SQLite
WITH page AS (SELECT DISTINCT id FROM (SELECT s.user_id AS id, (s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = ? AND s.expired = false UNION ALL SELECT s.user_id AS id, (s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = ? AND s.expired = false UNION ALL SELECT s.user_id AS id, (s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = ? AND s.expired = false UNION ALL SELECT s.user_id AS id, (s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = ? AND s.expired = false UNION ALL SELECT +s.user_id AS id, ((s.resource IN ('print', 'print-online') OR (s.resource IS NULL AND s.product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))) AND s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)) AS ok FROM subscriptions s WHERE s.pending_start <= ? ORDER BY id ASC LIMIT ? OFFSET ?) AS w WHERE ok ORDER BY id ASC LIMIT ? OFFSET ?)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id IN (SELECT id FROM page)
ORDER BY id ASC
-- ? = 1796083200
-- ? = 1796083200
-- ? = "print"
-- ? = 1796083200
-- ? = 1796083200
-- ? = "print-online"
-- ? = 1796083200
-- ? = 1796083200
-- ? = "/digital"
-- ? = 1796083200
-- ? = 1796083200
-- ? = "/bundle"
-- ? = 1796083200
-- ? = 1796083200
-- ? = 1796083200
-- ? = 10000
-- ? = 0
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT DISTINCT id FROM (SELECT * FROM (SELECT s.user_id AS id, (s.expired = false AND s.date_started <= $1 AND (s.date_ended IS NULL OR s.date_ended > $2)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = $3 AND s.expired = false ORDER BY s.user_id ASC LIMIT $4) AS a UNION ALL SELECT * FROM (SELECT s.user_id AS id, (s.expired = false AND s.date_started <= $5 AND (s.date_ended IS NULL OR s.date_ended > $6)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = $7 AND s.expired = false ORDER BY s.user_id ASC LIMIT $8) AS a UNION ALL SELECT * FROM (SELECT s.user_id AS id, (s.expired = false AND s.date_started <= $9 AND (s.date_ended IS NULL OR s.date_ended > $10)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = $11 AND s.expired = false ORDER BY s.user_id ASC LIMIT $12) AS a UNION ALL SELECT * FROM (SELECT s.user_id AS id, (s.expired = false AND s.date_started <= $13 AND (s.date_ended IS NULL OR s.date_ended > $14)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = $15 AND s.expired = false ORDER BY s.user_id ASC LIMIT $16) AS a UNION ALL SELECT * FROM (SELECT +s.user_id AS id, ((s.resource IN ('print', 'print-online') OR (s.resource IS NULL AND s.product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))) AND s.expired = false AND s.date_started <= $17 AND (s.date_ended IS NULL OR s.date_ended > $18)) AS ok FROM subscriptions s WHERE s.pending_start <= $19 ORDER BY +s.user_id ASC LIMIT $20) AS a ORDER BY id ASC LIMIT $21 OFFSET $22) AS w WHERE ok ORDER BY id ASC LIMIT $23 OFFSET $24)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id = ANY (ARRAY(SELECT id FROM page))
ORDER BY id ASC
-- $1 = "2026-12-01T00:00:00.000Z"
-- $2 = "2026-12-01T00:00:00.000Z"
-- $3 = "print"
-- $4 = 10000
-- $5 = "2026-12-01T00:00:00.000Z"
-- $6 = "2026-12-01T00:00:00.000Z"
-- $7 = "print-online"
-- $8 = 10000
-- $9 = "2026-12-01T00:00:00.000Z"
-- $10 = "2026-12-01T00:00:00.000Z"
-- $11 = "/digital"
-- $12 = 10000
-- $13 = "2026-12-01T00:00:00.000Z"
-- $14 = "2026-12-01T00:00:00.000Z"
-- $15 = "/bundle"
-- $16 = 10000
-- $17 = "2026-12-01T00:00:00.000Z"
-- $18 = "2026-12-01T00:00:00.000Z"
-- $19 = "2026-12-01T00:00:00.000Z"
-- $20 = 10000
-- $21 = 10000
-- $22 = 0
-- $23 = 101
-- $24 = 0;
