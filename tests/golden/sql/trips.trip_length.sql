-- SELECT * FROM g_trips_trip_length(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_trips_trip_length> AS g_trips_trip_length
