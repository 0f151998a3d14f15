-- SQLite
WITH page AS (SELECT id FROM users WHERE id IN (SELECT id FROM users WHERE email_lower >= ? AND email_lower < ? UNION ALL SELECT id FROM users WHERE family_key >= ? AND family_key < ? UNION ALL SELECT id FROM users WHERE given_key >= ? AND given_key < ? UNION ALL SELECT id FROM users WHERE family_compact >= ? AND family_compact < ? UNION ALL SELECT id FROM users WHERE given_compact >= ? AND given_compact < ? UNION ALL SELECT id FROM (SELECT id FROM users WHERE circulation_number = ? ORDER BY id ASC LIMIT ?) AS a) ORDER BY id ASC LIMIT ? OFFSET ?)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id IN (SELECT id FROM page)
ORDER BY id ASC
-- ? = "lovelace"
-- ? = "lovelacf"
-- ? = "lovelace"
-- ? = "lovelacf"
-- ? = "lovelace"
-- ? = "lovelacf"
-- ? = "lovelace"
-- ? = "lovelacf"
-- ? = "lovelace"
-- ? = "lovelacf"
-- ? = "lovelace"
-- ? = 101
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT id FROM users WHERE id IN (SELECT id FROM users WHERE (email_lower COLLATE "C") >= $1 AND (email_lower COLLATE "C") < $2 UNION ALL SELECT id FROM users WHERE family_key >= $3 AND family_key < $4 UNION ALL SELECT id FROM users WHERE given_key >= $5 AND given_key < $6 UNION ALL SELECT id FROM users WHERE family_compact >= $7 AND family_compact < $8 UNION ALL SELECT id FROM users WHERE given_compact >= $9 AND given_compact < $10 UNION ALL SELECT id FROM (SELECT id FROM users WHERE circulation_number = $11 ORDER BY id ASC LIMIT $12) AS a) ORDER BY id ASC LIMIT $13 OFFSET $14)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id = ANY (ARRAY(SELECT id FROM page))
ORDER BY id ASC
-- $1 = "lovelace"
-- $2 = "lovelacf"
-- $3 = "lovelace"
-- $4 = "lovelacf"
-- $5 = "lovelace"
-- $6 = "lovelacf"
-- $7 = "lovelace"
-- $8 = "lovelacf"
-- $9 = "lovelace"
-- $10 = "lovelacf"
-- $11 = "lovelace"
-- $12 = 101
-- $13 = 101
-- $14 = 0;
