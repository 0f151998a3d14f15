-- SQLite
WITH page AS (SELECT DISTINCT id FROM (SELECT id AS id, (EXISTS (SELECT 1 FROM user_newsletters n WHERE n.user_id = users.id AND n.newsletter_id = ?)) AS ok FROM users WHERE id IN (SELECT d.user_id FROM site_domains d WHERE d.domain IN (?, ?)) ORDER BY id ASC LIMIT ? OFFSET ?) AS w WHERE ok ORDER BY id ASC LIMIT ? OFFSET ?)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id IN (SELECT id FROM page)
ORDER BY id ASC
-- ? = "morning-briefing"
-- ? = "example.ac.uk"
-- ? = "ac.uk"
-- ? = 10000
-- ? = 0
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT DISTINCT id FROM (SELECT * FROM (SELECT id AS id, (EXISTS (SELECT 1 FROM user_newsletters n WHERE n.user_id = users.id AND n.newsletter_id = $1 OFFSET 0)) AS ok FROM users WHERE id IN (SELECT d.user_id FROM site_domains d WHERE d.domain IN ($2, $3)) ORDER BY id ASC LIMIT $4) AS a ORDER BY id ASC LIMIT $5 OFFSET $6) AS w WHERE ok ORDER BY id ASC LIMIT $7 OFFSET $8)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id = ANY (ARRAY(SELECT id FROM page))
ORDER BY id ASC
-- $1 = "morning-briefing"
-- $2 = "example.ac.uk"
-- $3 = "ac.uk"
-- $4 = 10000
-- $5 = 10000
-- $6 = 0
-- $7 = 101
-- $8 = 0;
