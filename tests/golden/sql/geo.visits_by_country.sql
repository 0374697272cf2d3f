-- SELECT * FROM g_geo_visits_by_country(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_geo_visits_by_country> AS g_geo_visits_by_country
