-- SELECT * FROM g_mode_favourite_page(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_mode_favourite_page> AS g_mode_favourite_page
