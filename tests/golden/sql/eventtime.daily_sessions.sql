-- SELECT * FROM g_eventtime_daily_sessions(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_eventtime_daily_sessions> AS g_eventtime_daily_sessions
