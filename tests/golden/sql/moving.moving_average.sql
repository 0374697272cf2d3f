-- SELECT * FROM g_moving_moving_average(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_moving_moving_average> AS g_moving_moving_average
