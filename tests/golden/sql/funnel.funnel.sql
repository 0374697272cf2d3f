-- SELECT * FROM g_funnel_funnel(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_funnel_funnel> AS g_funnel_funnel
