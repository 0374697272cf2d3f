-- SELECT * FROM g_regex_text_parse_log(TABLE(looplift_golden_input))
SELECT * FROM <plan of g_regex_text_parse_log> AS g_regex_text_parse_log
