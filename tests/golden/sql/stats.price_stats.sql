-- SELECT * FROM g_stats_price_stats(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_stats_price_stats> AS g_stats_price_stats
