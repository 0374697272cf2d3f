-- SELECT * FROM g_weekly_weekly_revenue(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_weekly_weekly_revenue> AS g_weekly_weekly_revenue
