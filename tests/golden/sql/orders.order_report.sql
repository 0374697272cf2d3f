-- SELECT * FROM g_orders_order_report(TABLE(looplift_golden_input), 0L)
SELECT * FROM <plan of g_orders_order_report> AS g_orders_order_report
