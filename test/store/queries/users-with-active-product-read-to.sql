-- SQLite
WITH page AS (SELECT DISTINCT id FROM (SELECT s.user_id AS id, (((s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?))) AND s.product_id = ?) AS ok FROM subscriptions s WHERE s.product_id = ? AND CASE WHEN s.pending_start IS NULL THEN s.product_id END = ? AND s.expired = false AND s.user_id <= ? UNION ALL SELECT +s.user_id AS id, (((s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?))) AND s.product_id = ?) AS ok FROM subscriptions s WHERE s.pending_start <= ? AND +s.user_id <= ? ORDER BY id ASC LIMIT ? OFFSET ?) AS w WHERE ok ORDER BY id ASC LIMIT ? OFFSET ?)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id IN (SELECT id FROM page)
ORDER BY id ASC
-- ? = 1796083200
-- ? = 1796083200
-- ? = "digital"
-- ? = "digital"
-- ? = "digital"
-- ? = 500
-- ? = 1796083200
-- ? = 1796083200
-- ? = "digital"
-- ? = 1796083200
-- ? = 500
-- ? = 9007199254740991
-- ? = 0
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT DISTINCT id FROM (SELECT * FROM (SELECT s.user_id AS id, (((s.expired = false AND s.date_started <= $1 AND (s.date_ended IS NULL OR s.date_ended > $2))) AND s.product_id = $3) AS ok FROM subscriptions s WHERE s.product_id = $4 AND CASE WHEN s.pending_start IS NULL THEN s.product_id END = $5 AND s.expired = false AND s.user_id <= $6 ORDER BY s.user_id ASC LIMIT $7) AS a UNION ALL SELECT * FROM (SELECT +s.user_id AS id, (((s.expired = false AND s.date_started <= $8 AND (s.date_ended IS NULL OR s.date_ended > $9))) AND s.product_id = $10) AS ok FROM subscriptions s WHERE s.pending_start <= $11 AND +s.user_id <= $12 ORDER BY +s.user_id ASC LIMIT $13) AS a ORDER BY id ASC LIMIT $14 OFFSET $15) AS w WHERE ok ORDER BY id ASC LIMIT $16 OFFSET $17)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id = ANY (ARRAY(SELECT id FROM page))
ORDER BY id ASC
-- $1 = "2026-12-01T00:00:00.000Z"
-- $2 = "2026-12-01T00:00:00.000Z"
-- $3 = "digital"
-- $4 = "digital"
-- $5 = "digital"
-- $6 = 500
-- $7 = 9007199254740991
-- $8 = "2026-12-01T00:00:00.000Z"
-- $9 = "2026-12-01T00:00:00.000Z"
-- $10 = "digital"
-- $11 = "2026-12-01T00:00:00.000Z"
-- $12 = 500
-- $13 = 9007199254740991
-- $14 = 9007199254740991
-- $15 = 0
-- $16 = 101
-- $17 = 0;
