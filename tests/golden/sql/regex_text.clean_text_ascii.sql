-- SELECT g_regex_text_clean_text_ascii(c0) AS result FROM looplift_golden_input
SELECT `looplift_clean_text_ascii_a587a987cc`((c0)) AS result FROM looplift_golden_input
