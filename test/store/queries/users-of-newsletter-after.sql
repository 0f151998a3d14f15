-- SQLite
WITH page AS (SELECT m.user_id AS id FROM user_newsletters m WHERE m.newsletter_id = ? AND m.user_id > ? ORDER BY id ASC LIMIT ? OFFSET ?)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id IN (SELECT id FROM page)
ORDER BY id ASC
-- ? = "morning-briefing"
-- ? = 42
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT m.user_id AS id FROM user_newsletters m WHERE m.newsletter_id = $1 AND m.user_id > $2 ORDER BY id ASC LIMIT $3 OFFSET $4)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id = ANY (ARRAY(SELECT id FROM page))
ORDER BY id ASC
-- $1 = "morning-briefing"
-- $2 = 42
-- $3 = 101
-- $4 = 0;
