-- SELECT * FROM g_windows_sliding_counts(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_windows_sliding_counts> AS g_windows_sliding_counts
