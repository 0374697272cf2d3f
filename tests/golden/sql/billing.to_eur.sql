-- SELECT g_billing_to_eur(c0, c1) AS result FROM looplift_golden_input
SELECT `looplift_to_eur_1237ddbf1b`((c0), (c1)) AS result FROM looplift_golden_input
