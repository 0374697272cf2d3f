-- SELECT * FROM g_clickstream_clickstream(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_clickstream_clickstream> AS g_clickstream_clickstream
