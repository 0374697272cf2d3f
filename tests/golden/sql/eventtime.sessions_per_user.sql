-- SELECT * FROM g_eventtime_sessions_per_user(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_eventtime_sessions_per_user> AS g_eventtime_sessions_per_user
