-- SELECT * FROM g_clicks_session_ids(TABLE(looplift_golden_input), 1800L)
SELECT * FROM <plan of g_clicks_session_ids> AS g_clicks_session_ids
