-- SELECT * FROM g_sessions_sessions(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_sessions_sessions> AS g_sessions_sessions
