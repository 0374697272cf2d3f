-- SELECT * FROM g_orders_size_buckets(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_orders_size_buckets> AS g_orders_size_buckets
