-- SELECT g_orders_euros(c0) AS result FROM looplift_golden_input
SELECT `looplift_euros_d3d5581e0c`((c0)) AS result FROM looplift_golden_input
