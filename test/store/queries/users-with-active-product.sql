-- SQLite
WITH page AS (SELECT DISTINCT id FROM (SELECT s.user_id AS id, (((s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?))) AND s.product_id = ?) AS ok FROM subscriptions s WHERE s.product_id = ? AND CASE WHEN s.pending_start IS NULL THEN s.product_id END = ? AND s.expired = false UNION ALL SELECT +s.user_id AS id, (((s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?))) AND s.product_id = ?) AS ok FROM subscriptions s WHERE s.pending_start <= ? ORDER BY id ASC LIMIT ? OFFSET ?) AS w WHERE ok ORDER BY id ASC LIMIT ? OFFSET ?)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id IN (SELECT id FROM page)
ORDER BY id ASC
-- ? = 1796083200
-- ? = 1796083200
-- ? = "digital"
-- ? = "digital"
-- ? = "digital"
-- ? = 1796083200
-- ? = 1796083200
-- ? = "digital"
-- ? = 1796083200
-- ? = 10000
-- ? = 0
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT DISTINCT id FROM (SELECT * FROM (SELECT s.user_id AS id, (((s.expired = false AND s.date_started <= $1 AND (s.date_ended IS NULL OR s.date_ended > $2))) AND s.product_id = $3) AS ok FROM subscriptions s WHERE s.product_id = $4 AND CASE WHEN s.pending_start IS NULL THEN s.product_id END = $5 AND s.expired = false ORDER BY s.user_id ASC LIMIT $6) AS a UNION ALL SELECT * FROM (SELECT +s.user_id AS id, (((s.expired = false AND s.date_started <= $7 AND (s.date_ended IS NULL OR s.date_ended > $8))) AND s.product_id = $9) AS ok FROM subscriptions s WHERE s.pending_start <= $10 ORDER BY +s.user_id ASC LIMIT $11) AS a ORDER BY id ASC LIMIT $12 OFFSET $13) AS w WHERE ok ORDER BY id ASC LIMIT $14 OFFSET $15)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id = ANY (ARRAY(SELECT id FROM page))
ORDER BY id ASC
-- $1 = "2026-12-01T00:00:00.000Z"
-- $2 = "2026-12-01T00:00:00.000Z"
-- $3 = "digital"
-- $4 = "digital"
-- $5 = "digital"
-- $6 = 10000
-- $7 = "2026-12-01T00:00:00.000Z"
-- $8 = "2026-12-01T00:00:00.000Z"
-- $9 = "digital"
-- $10 = "2026-12-01T00:00:00.000Z"
-- $11 = 10000
-- $12 = 10000
-- $13 = 0
-- $14 = 101
-- $15 = 0;
