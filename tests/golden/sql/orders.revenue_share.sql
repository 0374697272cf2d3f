-- SELECT * FROM g_orders_revenue_share(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_orders_revenue_share> AS g_orders_revenue_share
