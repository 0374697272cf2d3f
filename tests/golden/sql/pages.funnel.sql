-- SELECT * FROM g_pages_funnel(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_pages_funnel> AS g_pages_funnel
