-- SELECT * FROM g_dedup_latest(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_dedup_latest> AS g_dedup_latest
