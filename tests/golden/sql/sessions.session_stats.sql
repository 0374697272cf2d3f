-- SELECT * FROM g_sessions_session_stats(TABLE(looplift_golden_input), 0L)
SELECT * FROM <plan of g_sessions_session_stats> AS g_sessions_session_stats
