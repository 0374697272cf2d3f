-- SELECT * FROM g_weblog_page_hits(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_weblog_page_hits> AS g_weblog_page_hits
