-- SQLite
WITH page AS (SELECT id FROM users WHERE id IN (SELECT id FROM (SELECT id FROM users WHERE email_lower = ? ORDER BY id ASC LIMIT ?) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE family_key = ? ORDER BY id ASC LIMIT ?) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE given_key = ? ORDER BY id ASC LIMIT ?) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE family_compact = ? ORDER BY id ASC LIMIT ?) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE given_compact = ? ORDER BY id ASC LIMIT ?) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE circulation_number = ? ORDER BY id ASC LIMIT ?) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE id = ? ORDER BY id ASC LIMIT ?) AS a) ORDER BY id ASC LIMIT ? OFFSET ?)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id IN (SELECT id FROM page)
ORDER BY id ASC
-- ? = "42"
-- ? = 101
-- ? = "42"
-- ? = 101
-- ? = "42"
-- ? = 101
-- ? = "42"
-- ? = 101
-- ? = "42"
-- ? = 101
-- ? = "42"
-- ? = 101
-- ? = "42"
-- ? = 101
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT id FROM users WHERE id IN (SELECT id FROM (SELECT id FROM users WHERE (email_lower COLLATE "C") = $1 ORDER BY id ASC LIMIT $2) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE family_key = $3 ORDER BY id ASC LIMIT $4) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE given_key = $5 ORDER BY id ASC LIMIT $6) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE family_compact = $7 ORDER BY id ASC LIMIT $8) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE given_compact = $9 ORDER BY id ASC LIMIT $10) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE circulation_number = $11 ORDER BY id ASC LIMIT $12) AS a UNION ALL SELECT id FROM (SELECT id FROM users WHERE id = $13 ORDER BY id ASC LIMIT $14) AS a) ORDER BY id ASC LIMIT $15 OFFSET $16)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id = ANY (ARRAY(SELECT id FROM page))
ORDER BY id ASC
-- $1 = "42"
-- $2 = 101
-- $3 = "42"
-- $4 = 101
-- $5 = "42"
-- $6 = 101
-- $7 = "42"
-- $8 = 101
-- $9 = "42"
-- $10 = 101
-- $11 = "42"
-- $12 = 101
-- $13 = "42"
-- $14 = 101
-- $15 = 101
-- $16 = 0;
