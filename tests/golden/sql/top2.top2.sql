-- SELECT * FROM g_top2_top2(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_top2_top2> AS g_top2_top2
