-- SELECT * FROM g_stock_stock_levels(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_stock_stock_levels> AS g_stock_stock_levels
