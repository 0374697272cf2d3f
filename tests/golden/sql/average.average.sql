-- SELECT * FROM g_average_average(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_average_average> AS g_average_average
