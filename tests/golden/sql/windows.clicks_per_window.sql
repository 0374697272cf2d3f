-- SELECT * FROM g_windows_clicks_per_window(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_windows_clicks_per_window> AS g_windows_clicks_per_window
