-- SELECT * FROM g_topn_top_products(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_topn_top_products> AS g_topn_top_products
