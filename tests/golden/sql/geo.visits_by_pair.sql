-- SELECT * FROM g_geo_visits_by_pair(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_geo_visits_by_pair> AS g_geo_visits_by_pair
