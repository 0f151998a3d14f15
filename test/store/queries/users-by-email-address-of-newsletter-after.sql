-- SQLite
WITH page AS (SELECT DISTINCT id FROM (SELECT id AS id, (EXISTS (SELECT 1 FROM user_newsletters n WHERE n.user_id = users.id AND n.newsletter_id = ? AND n.user_id > ?)) AS ok FROM users WHERE email_lower = ? AND id > ? ORDER BY id ASC LIMIT ? OFFSET ?) AS w WHERE ok ORDER BY id ASC LIMIT ? OFFSET ?)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id IN (SELECT id FROM page)
ORDER BY id ASC
-- ? = "morning-briefing"
-- ? = 42
-- ? = "ada@example.com"
-- ? = 42
-- ? = 10000
-- ? = 0
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT DISTINCT id FROM (SELECT * FROM (SELECT id AS id, (EXISTS (SELECT 1 FROM user_newsletters n WHERE n.user_id = users.id AND n.newsletter_id = $1 AND n.user_id > $2 OFFSET 0)) AS ok FROM users WHERE email_lower = $3 AND id > $4 ORDER BY id ASC LIMIT $5) AS a ORDER BY id ASC LIMIT $6 OFFSET $7) AS w WHERE ok ORDER BY id ASC LIMIT $8 OFFSET $9)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id = ANY (ARRAY(SELECT id FROM page))
ORDER BY id ASC
-- $1 = "morning-briefing"
-- $2 = 42
-- $3 = "ada@example.com"
-- $4 = 42
-- $5 = 10000
-- $6 = 10000
-- $7 = 0
-- $8 = 101
-- $9 = 0;
