-- SELECT g_regex_text_clean_text(c0) AS result FROM looplift_golden_input
SELECT `looplift_clean_text_7040468f43`((c0)) AS result FROM looplift_golden_input
