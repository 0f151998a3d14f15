-- SQLite
WITH page AS (SELECT DISTINCT id FROM (SELECT m.user_id AS id, (EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = m.user_id AND ((s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?))) AND (s.resource IN ('print', 'print-online') OR (s.resource IS NULL AND s.product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))))) AS ok FROM user_newsletters m WHERE m.newsletter_id = ? ORDER BY id ASC LIMIT ? OFFSET ?) AS w WHERE ok ORDER BY id ASC LIMIT ? OFFSET ?)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id IN (SELECT id FROM page)
ORDER BY id ASC
-- ? = 1796083200
-- ? = 1796083200
-- ? = "morning-briefing"
-- ? = 10000
-- ? = 0
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT DISTINCT id FROM (SELECT * FROM (SELECT m.user_id AS id, (EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = m.user_id AND ((s.expired = false AND s.date_started <= $1 AND (s.date_ended IS NULL OR s.date_ended > $2))) AND (s.resource IN ('print', 'print-online') OR (s.resource IS NULL AND s.product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))) OFFSET 0)) AS ok FROM user_newsletters m WHERE m.newsletter_id = $3 ORDER BY m.user_id ASC LIMIT $4) AS a ORDER BY id ASC LIMIT $5 OFFSET $6) AS w WHERE ok ORDER BY id ASC LIMIT $7 OFFSET $8)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id = ANY (ARRAY(SELECT id FROM page))
ORDER BY id ASC
-- $1 = "2026-12-01T00:00:00.000Z"
-- $2 = "2026-12-01T00:00:00.000Z"
-- $3 = "morning-briefing"
-- $4 = 10000
-- $5 = 10000
-- $6 = 0
-- $7 = 101
-- $8 = 0;
