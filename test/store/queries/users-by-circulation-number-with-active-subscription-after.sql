-- SQLite
WITH page AS (SELECT DISTINCT id FROM (SELECT id AS id, (EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = users.id AND s.user_id > ? AND ((s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?))))) AS ok FROM users WHERE circulation_number = ? AND id > ? ORDER BY id ASC LIMIT ? OFFSET ?) AS w WHERE ok ORDER BY id ASC LIMIT ? OFFSET ?)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id IN (SELECT id FROM page)
ORDER BY id ASC
-- ? = 42
-- ? = 1796083200
-- ? = 1796083200
-- ? = "C-1234"
-- ? = 42
-- ? = 10000
-- ? = 0
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT DISTINCT id FROM (SELECT * FROM (SELECT id AS id, (EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = users.id AND s.user_id > $1 AND ((s.expired = false AND s.date_started <= $2 AND (s.date_ended IS NULL OR s.date_ended > $3))) OFFSET 0)) AS ok FROM users WHERE circulation_number = $4 AND id > $5 ORDER BY id ASC LIMIT $6) AS a ORDER BY id ASC LIMIT $7 OFFSET $8) AS w WHERE ok ORDER BY id ASC LIMIT $9 OFFSET $10)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id = ANY (ARRAY(SELECT id FROM page))
ORDER BY id ASC
-- $1 = 42
-- $2 = "2026-12-01T00:00:00.000Z"
-- $3 = "2026-12-01T00:00:00.000Z"
-- $4 = "C-1234"
-- $5 = 42
-- $6 = 10000
-- $7 = 10000
-- $8 = 0
-- $9 = 101
-- $10 = 0;
