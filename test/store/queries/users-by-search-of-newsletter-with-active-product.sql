-- SQLite
WITH page AS (SELECT id FROM users WHERE id IN (SELECT id FROM users WHERE email_lower >= ? AND email_lower < ? UNION ALL SELECT id FROM users WHERE family_key >= ? AND family_key < ? UNION ALL SELECT id FROM users WHERE given_key >= ? AND given_key < ? UNION ALL SELECT id FROM users WHERE family_compact >= ? AND family_compact < ? UNION ALL SELECT id FROM users WHERE given_compact >= ? AND given_compact < ? UNION ALL SELECT id FROM (SELECT id FROM users WHERE circulation_number = ? AND EXISTS (SELECT 1 FROM user_newsletters n WHERE n.user_id = users.id AND n.newsletter_id = ?) AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = users.id AND ((s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?))) AND s.product_id = ?) ORDER BY id ASC LIMIT ?) AS a) AND EXISTS (SELECT 1 FROM user_newsletters n WHERE n.user_id = users.id AND n.newsletter_id = ?) AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = users.id AND ((s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?))) AND s.product_id = ?) ORDER BY id ASC LIMIT ? OFFSET ?)
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
-- ? = "morning-briefing"
-- ? = 1796083200
-- ? = 1796083200
-- ? = "digital"
-- ? = 101
-- ? = "morning-briefing"
-- ? = 1796083200
-- ? = 1796083200
-- ? = "digital"
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT id FROM users WHERE id IN (SELECT id FROM users WHERE (email_lower COLLATE "C") >= $1 AND (email_lower COLLATE "C") < $2 UNION ALL SELECT id FROM users WHERE family_key >= $3 AND family_key < $4 UNION ALL SELECT id FROM users WHERE given_key >= $5 AND given_key < $6 UNION ALL SELECT id FROM users WHERE family_compact >= $7 AND family_compact < $8 UNION ALL SELECT id FROM users WHERE given_compact >= $9 AND given_compact < $10 UNION ALL SELECT id FROM (SELECT id FROM users WHERE circulation_number = $11 AND EXISTS (SELECT 1 FROM user_newsletters n WHERE n.user_id = users.id AND n.newsletter_id = $12) AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = users.id AND ((s.expired = false AND s.date_started <= $13 AND (s.date_ended IS NULL OR s.date_ended > $14))) AND s.product_id = $15) ORDER BY id ASC LIMIT $16) AS a) AND EXISTS (SELECT 1 FROM user_newsletters n WHERE n.user_id = users.id AND n.newsletter_id = $17) AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = users.id AND ((s.expired = false AND s.date_started <= $18 AND (s.date_ended IS NULL OR s.date_ended > $19))) AND s.product_id = $20) ORDER BY id ASC LIMIT $21 OFFSET $22)
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
-- $12 = "morning-briefing"
-- $13 = "2026-12-01T00:00:00.000Z"
-- $14 = "2026-12-01T00:00:00.000Z"
-- $15 = "digital"
-- $16 = 101
-- $17 = "morning-briefing"
-- $18 = "2026-12-01T00:00:00.000Z"
-- $19 = "2026-12-01T00:00:00.000Z"
-- $20 = "digital"
-- $21 = 101
-- $22 = 0;
