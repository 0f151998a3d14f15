-- SQLite
WITH page AS (SELECT id FROM users WHERE id IN (SELECT id FROM (SELECT id FROM users WHERE email_lower = ? ORDER BY id ASC LIMIT ?) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE family_key = ? ORDER BY id ASC LIMIT ?) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE given_key = ? ORDER BY id ASC LIMIT ?) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE circulation_number = ? ORDER BY id ASC LIMIT ?) AS a) ORDER BY id ASC LIMIT ? OFFSET ?)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id IN (SELECT id FROM page)
ORDER BY id ASC
-- ? = "@"
-- ? = 101
-- ? = "@"
-- ? = 101
-- ? = "@"
-- ? = 101
-- ? = "@"
-- ? = 101
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT id FROM users WHERE id IN (SELECT id FROM (SELECT id FROM users WHERE (email_lower COLLATE "C") = $1 ORDER BY id ASC LIMIT $2) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE family_key = $3 ORDER BY id ASC LIMIT $4) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE given_key = $5 ORDER BY id ASC LIMIT $6) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE circulation_number = $7 ORDER BY id ASC LIMIT $8) AS a) ORDER BY id ASC LIMIT $9 OFFSET $10)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id = ANY (ARRAY(SELECT id FROM page))
ORDER BY id ASC
-- $1 = "@"
-- $2 = 101
-- $3 = "@"
-- $4 = 101
-- $5 = "@"
-- $6 = 101
-- $7 = "@"
-- $8 = 101
-- $9 = 101
-- $10 = 0;
