-- SQLite
WITH page AS (SELECT DISTINCT id FROM (SELECT s.user_id AS id, (((s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?)))) AS ok FROM subscriptions s ORDER BY id ASC LIMIT ? OFFSET ?) AS w WHERE ok ORDER BY id ASC LIMIT ? OFFSET ?)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id IN (SELECT id FROM page)
ORDER BY id ASC
-- ? = 1796083200
-- ? = 1796083200
-- ? = 10000
-- ? = 0
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT DISTINCT id FROM (SELECT * FROM (SELECT s.user_id AS id, (((s.expired = false AND s.date_started <= $1 AND (s.date_ended IS NULL OR s.date_ended > $2)))) AS ok FROM subscriptions s ORDER BY s.user_id ASC LIMIT $3) AS a ORDER BY id ASC LIMIT $4 OFFSET $5) AS w WHERE ok ORDER BY id ASC LIMIT $6 OFFSET $7)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id = ANY (ARRAY(SELECT id FROM page))
ORDER BY id ASC
-- $1 = "2026-12-01T00:00:00.000Z"
-- $2 = "2026-12-01T00:00:00.000Z"
-- $3 = 10000
-- $4 = 10000
-- $5 = 0
-- $6 = 101
-- $7 = 0;
