-- SELECT * FROM g_visits_visit_summary(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_visits_visit_summary> AS g_visits_visit_summary
