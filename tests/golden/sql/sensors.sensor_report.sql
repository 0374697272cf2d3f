-- SELECT * FROM g_sensors_sensor_report(TABLE(looplift_golden_input), 0.0D)
SELECT * FROM <plan of g_sensors_sensor_report> AS g_sensors_sensor_report
