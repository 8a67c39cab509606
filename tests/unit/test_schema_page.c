/*
 * test_schema_page.c - the page's description of the result tables
 * (GET /api/schema, src/output/schema_page.c): every page title names a
 * column of its table, the page formatter follows the column's type and
 * unit, and the document carries the role table and each column's name,
 * type, unit, titles and formatter as the page reads them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "output/schema.h"
#include "output/schema_page.h"

static void test_titles_name_columns(void **st)
{
	const char *bad = NULL;

	(void)st;
	if (sc_page_check(&bad) != 0)
		fail_msg("page title for no column: %s", bad);
}

static void test_fmt(void **st)
{
	(void)st;
	assert_string_equal(sc_page_fmt(sc_col_find(&sc_operators, "name")), "text");
	assert_string_equal(sc_page_fmt(sc_col_find(&sc_operators, "calls")), "int");
	assert_string_equal(sc_page_fmt(sc_col_find(&sc_operators, "host_self_us")), "us");
	assert_string_equal(sc_page_fmt(sc_col_find(&sc_operators, "tc_eligible")), "bool");
	assert_string_equal(sc_page_fmt(sc_col_find(&sc_operators, "tc_self_ratio")), "pct");
	assert_string_equal(sc_page_fmt(sc_col_find(&sc_kernels, "shared_memory")), "bytes");
	assert_string_equal(sc_page_fmt(sc_col_find(&sc_kernels, "mean_occupancy")), "pct100");
	assert_string_equal(sc_page_fmt(sc_col_find(&sc_kernels, "mean_blocks_per_sm")), "num");
}

static void test_document(void **st)
{
	struct jsonw w;
	struct nns_err err;
	size_t len = 0;
	char *doc;

	(void)st;
	nns_err_clear(&err);
	assert_int_equal(jsonw_init_mem(&w, 0, 0), 0);
	out_json_schema(&w);
	assert_int_equal(jsonw_finish(&w, &err), NNS_OK);
	doc = jsonw_take(&w, &len);
	jsonw_release(&w);
	assert_non_null(doc);
	assert_int_equal(strlen(doc), len);
	/* the role table, in priority order */
	assert_non_null(strstr(doc, "\"roles\":[{\"key\":\"kernel_us\",\"name\":\"Kernel\"},"
				    "{\"key\":\"memcpy_us\",\"name\":\"Memcpy\"}"));
	/* a column as the page reads it */
	assert_non_null(strstr(doc, "\"operators\":{\"doc\":\"operator statistics\",\"columns\":["
				    "{\"name\":\"name\",\"type\":\"text\",\"title\":\"Operator\","
				    "\"page\":\"Name\",\"fmt\":\"text\""));
	assert_non_null(strstr(doc, "{\"name\":\"calls\",\"type\":\"int\",\"unit\":\"count\","
				    "\"title\":\"Calls\",\"page\":\"Calls\",\"fmt\":\"int\""));
	/* the steps' role columns are titled by the role table, not the
	 * terminal's "Comm" */
	assert_non_null(strstr(doc,
			       "{\"name\":\"communication_us\",\"type\":\"real\",\"unit\":\"us\","
			       "\"title\":\"Comm\",\"page\":\"Communication\",\"fmt\":\"us\""));
	/* a column the page does not show has no page title */
	assert_non_null(strstr(doc, "{\"name\":\"start_us\",\"type\":\"real\",\"unit\":\"us\","
				    "\"title\":\"Start µs\",\"fmt\":\"us\""));
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_titles_name_columns),
	    cmocka_unit_test(test_fmt),
	    cmocka_unit_test(test_document),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
