-- SQLite
WITH page AS (SELECT DISTINCT id FROM (SELECT s.user_id AS id, (((s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?))) AND s.product_id = ? AND EXISTS (SELECT 1 FROM user_newsletters n WHERE n.user_id = s.user_id AND n.newsletter_id = ?)) AS ok FROM subscriptions s WHERE s.product_id = ? AND CASE WHEN s.pending_start IS NULL THEN s.product_id END = ? AND s.expired = false UNION ALL SELECT +s.user_id AS id, (((s.expired = false AND s.date_started <= ? AND (s.date_ended IS NULL OR s.date_ended > ?))) AND s.product_id = ? AND EXISTS (SELECT 1 FROM user_newsletters n WHERE n.user_id = s.user_id AND n.newsletter_id = ?)) AS ok FROM subscriptions s WHERE s.pending_start <= ? ORDER BY id ASC LIMIT ? OFFSET ?) AS w WHERE ok ORDER BY id ASC LIMIT ? OFFSET ?)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id IN (SELECT id FROM page)
ORDER BY id ASC
-- ? = 1796083200
-- ? = 1796083200
-- ? = "digital"
-- ? = "morning-briefing"
-- ? = "digital"
-- ? = "digital"
-- ? = 1796083200
-- ? = 1796083200
-- ? = "digital"
-- ? = "morning-briefing"
-- ? = 1796083200
-- ? = 10000
-- ? = 0
-- ? = 101
-- ? = 0;

-- PostgreSQL
WITH page AS (SELECT DISTINCT id FROM (SELECT * FROM (SELECT s.user_id AS id, (((s.expired = false AND s.date_started <= $1 AND (s.date_ended IS NULL OR s.date_ended > $2))) AND s.product_id = $3 AND EXISTS (SELECT 1 FROM user_newsletters n WHERE n.user_id = s.user_id AND n.newsletter_id = $4 OFFSET 0)) AS ok FROM subscriptions s WHERE s.product_id = $5 AND CASE WHEN s.pending_start IS NULL THEN s.product_id END = $6 AND s.expired = false ORDER BY s.user_id ASC LIMIT $7) AS a UNION ALL SELECT * FROM (SELECT +s.user_id AS id, (((s.expired = false AND s.date_started <= $8 AND (s.date_ended IS NULL OR s.date_ended > $9))) AND s.product_id = $10 AND EXISTS (SELECT 1 FROM user_newsletters n WHERE n.user_id = s.user_id AND n.newsletter_id = $11 OFFSET 0)) AS ok FROM subscriptions s WHERE s.pending_start <= $12 ORDER BY +s.user_id ASC LIMIT $13) AS a ORDER BY id ASC LIMIT $14 OFFSET $15) AS w WHERE ok ORDER BY id ASC LIMIT $16 OFFSET $17)
SELECT id, family_name, honorific_prefix, given_name, additional_name, honorific_suffix, address_street_address, address_unit_number, address_address_locality, address_address_region, address_address_country, address_postal_code, circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone, cell_number, fax_number, demographics
FROM users
WHERE id = ANY (ARRAY(SELECT id FROM page))
ORDER BY id ASC
-- $1 = "2026-12-01T00:00:00.000Z"
-- $2 = "2026-12-01T00:00:00.000Z"
-- $3 = "digital"
-- $4 = "morning-briefing"
-- $5 = "digital"
-- $6 = "digital"
-- $7 = 10000
-- $8 = "2026-12-01T00:00:00.000Z"
-- $9 = "2026-12-01T00:00:00.000Z"
-- $10 = "digital"
-- $11 = "morning-briefing"
-- $12 = "2026-12-01T00:00:00.000Z"
-- $13 = 10000
-- $14 = 10000
-- $15 = 0
-- $16 = 101
-- $17 = 0;
