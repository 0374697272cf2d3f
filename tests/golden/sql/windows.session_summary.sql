-- SELECT * FROM g_windows_session_summary(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_windows_session_summary> AS g_windows_session_summary
