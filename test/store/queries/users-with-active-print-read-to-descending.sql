-- SQLite
WITH page AS (SELECT DISTINCT id FROM (SELECT s.user_id AS id, (s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = ? AND s.expired = false AND s.user_id < ? AND s.user_id >= ? UNION ALL SELECT s.user_id AS id, (s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = ? AND s.expired = false AND s.user_id < ? AND s.user_id >= ? UNION ALL SELECT s.user_id AS id, (s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = ? AND s.expired = false AND s.user_id < ? AND s.user_id >= ? UNION ALL SELECT s.user_id AS id, (s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = ? AND s.expired = false AND s.user_id < ? AND s.user_id >= ? UNION ALL SELECT +s.user_id AS id, ((s.resource IN ('print', 'print-online') OR (s.resource IS NULL AND s.product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))) AND s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)) AS ok FROM subscriptions s WHERE s.pending_start <= ? AND +s.user_id < ? AND +s.user_id >= ? ORDER BY id DESC LIMIT ? OFFSET ?) AS w WHERE ok ORDER BY id DESC LIMIT ? OFFSET ?)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id IN (SELECT id FROM page)
ORDER BY id DESC
-- ? = 1796083200
-- ? = 1796083200
-- ? = "print"
-- ? = 900
-- ? = 500
-- ? = 1796083200
-- ? = 1796083200
-- ? = "print-online"
-- ? = 900
-- ? = 500
-- ? = 1796083200
-- ? = 1796083200
-- ? = "/digital"
-- ? = 900
-- ? = 500
-- ? = 1796083200
-- ? = 1796083200
-- ? = "/bundle"
-- ? = 900
-- ? = 500
-- ? = 1796083200
-- ? = 1796083200
-- ? = 1796083200
-- ? = 900
-- ? = 500
-- ? = 9007199254740991
-- ? = 0
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT DISTINCT id FROM (SELECT * FROM (SELECT s.user_id AS id, (s.expired = false AND s.date_started <= $1 AND (s.date_ended IS NULL OR s.date_ended > $2)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = $3 AND s.expired = false AND s.user_id < $4 AND s.user_id >= $5 ORDER BY s.user_id DESC LIMIT $6) AS a UNION ALL SELECT * FROM (SELECT s.user_id AS id, (s.expired = false AND s.date_started <= $7 AND (s.date_ended IS NULL OR s.date_ended > $8)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = $9 AND s.expired = false AND s.user_id < $10 AND s.user_id >= $11 ORDER BY s.user_id DESC LIMIT $12) AS a UNION ALL SELECT * FROM (SELECT s.user_id AS id, (s.expired = false AND s.date_started <= $13 AND (s.date_ended IS NULL OR s.date_ended > $14)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = $15 AND s.expired = false AND s.user_id < $16 AND s.user_id >= $17 ORDER BY s.user_id DESC LIMIT $18) AS a UNION ALL SELECT * FROM (SELECT s.user_id AS id, (s.expired = false AND s.date_started <= $19 AND (s.date_ended IS NULL OR s.date_ended > $20)) AS ok FROM subscriptions s WHERE CASE WHEN s.pending_start IS NULL THEN coalesce(s.resource, '/' || s.product_id) END = $21 AND s.expired = false AND s.user_id < $22 AND s.user_id >= $23 ORDER BY s.user_id DESC LIMIT $24) AS a UNION ALL SELECT * FROM (SELECT +s.user_id AS id, ((s.resource IN ('print', 'print-online') OR (s.resource IS NULL AND s.product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))) AND s.expired = false AND s.date_started <= $25 AND (s.date_ended IS NULL OR s.date_ended > $26)) AS ok FROM subscriptions s WHERE s.pending_start <= $27 AND +s.user_id < $28 AND +s.user_id >= $29 ORDER BY +s.user_id DESC LIMIT $30) AS a ORDER BY id DESC LIMIT $31 OFFSET $32) AS w WHERE ok ORDER BY id DESC LIMIT $33 OFFSET $34)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id = ANY (ARRAY(SELECT id FROM page))
ORDER BY id DESC
-- $1 = "2026-12-01T00:00:00.000Z"
-- $2 = "2026-12-01T00:00:00.000Z"
-- $3 = "print"
-- $4 = 900
-- $5 = 500
-- $6 = 9007199254740991
-- $7 = "2026-12-01T00:00:00.000Z"
-- $8 = "2026-12-01T00:00:00.000Z"
-- $9 = "print-online"
-- $10 = 900
-- $11 = 500
-- $12 = 9007199254740991
-- $13 = "2026-12-01T00:00:00.000Z"
-- $14 = "2026-12-01T00:00:00.000Z"
-- $15 = "/digital"
-- $16 = 900
-- $17 = 500
-- $18 = 9007199254740991
-- $19 = "2026-12-01T00:00:00.000Z"
-- $20 = "2026-12-01T00:00:00.000Z"
-- $21 = "/bundle"
-- $22 = 900
-- $23 = 500
-- $24 = 9007199254740991
-- $25 = "2026-12-01T00:00:00.000Z"
-- $26 = "2026-12-01T00:00:00.000Z"
-- $27 = "2026-12-01T00:00:00.000Z"
-- $28 = 900
-- $29 = 500
-- $30 = 9007199254740991
-- $31 = 9007199254740991
-- $32 = 0
-- $33 = 101
-- $34 = 0;
