/*
 * test_output.c - unit tests of the output building blocks: the streaming
 * JSON writer (escaping, numbers, nesting checks, caps), CSV quoting, safe
 * path components and the terminal table/number formatting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/jsonw.h"
#include "output/outfile.h"
#include "output/output.h"
#include "output/table.h"

/* Writes one string value with the memory backend; returns the output
 * (without the trailing newline); caller frees. */
static char *json_of_str(const char *s, size_t n)
{
	struct jsonw w;
	size_t len;
	char *out;

	jsonw_init_mem(&w, 0, 0);
	jsonw_strn(&w, s, n);
	assert_int_equal(jsonw_finish(&w, NULL), NNS_OK);
	out = jsonw_take(&w, &len);
	assert_non_null(out);
	assert_true(len > 0 && out[len - 1] == '\n');
	out[len - 1] = '\0';
	jsonw_release(&w);
	return out;
}

static void check_str(const char *in, size_t n, const char *want)
{
	char *got = json_of_str(in, n);
	json_error_t je;
	json_t *j;

	assert_string_equal(got, want);
	/* the output must parse back as a JSON string */
	j = json_loads(got, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	assert_non_null(j);
	assert_true(json_is_string(j));
	json_decref(j);
	free(got);
}

static void test_escape_basic(void **state)
{
	(void)state;
	check_str("plain", 5, "\"plain\"");
	check_str("", 0, "\"\"");
	check_str("q\"b\\s/", 6, "\"q\\\"b\\\\s/\"");
	check_str("a\nb\tc\rd\be\ff", 11, "\"a\\nb\\tc\\rd\\be\\ff\"");
	check_str("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\x7f\"");
	check_str("nul\0x", 5, "\"nul\\u0000x\"");
}

static void test_escape_utf8(void **state)
{
	(void)state;
	/* valid multi-byte sequences pass through */
	check_str("µs 日本 \xf0\x9f\x98\x80", 15, "\"µs 日本 \xf0\x9f\x98\x80\"");
	/* invalid bytes become U+FFFD, one per bad byte */
	check_str("a\xff"
		  "b",
		  3, "\"a\\ufffdb\"");
	check_str("\xc0\xaf", 2, "\"\\ufffd\\ufffd\"");			      /* overlong */
	check_str("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");	      /* surrogate */
	check_str("x\xe2\x82", 3, "\"x\\ufffd\\ufffd\"");		      /* cut sequence */
	check_str("\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* > U+10FFFF */
	/* U+2028/2029 escaped for JavaScript consumers */
	check_str("a\xe2\x80\xa8"
		  "b",
		  5, "\"a\\u2028b\"");
}

static void check_double(double v, const char *want)
{
	char b[40];

	jsonw_fmt_double(b, sizeof(b), v);
	assert_string_equal(b, want);
}

static void test_numbers(void **state)
{
	char b[40];
	double vals[] = {0.1,	 1.0 / 3.0, 123456.789, 1e-300, 5e-324, 1.7976931348623157e308,
			 2.5e21, -17.25,    1234567.891};

	(void)state;
	check_double(0.0, "0");
	check_double(-0.0, "-0");
	check_double(1.5, "1.5");
	check_double(0.1, "0.1");
	check_double(1000.0, "1000");
	check_double(1234.567, "1234.567");
	check_double(1623142623648120.0, "1623142623648120");
	check_double(1623142623648120.5, "1623142623648120.5");
	check_double(-42.0, "-42");
	check_double(1e20, "1e+20");
	check_double(NAN, "null");
	check_double(INFINITY, "null");
	check_double(-INFINITY, "null");
	/* every value reads back exactly */
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		jsonw_fmt_double(b, sizeof(b), vals[i]);
		assert_true(strtod(b, NULL) == vals[i]);
		assert_true(strlen(b) <= 24);
	}
}

static char *finish_mem(struct jsonw *w, int want_rc)
{
	struct nns_err err;
	char *out;

	nns_err_clear(&err);
	assert_int_equal(jsonw_finish(w, &err), want_rc);
	if (want_rc != NNS_OK) {
		assert_true(err.msg[0] != '\0');
		jsonw_release(w);
		return NULL;
	}
	out = jsonw_take(w, NULL);
	jsonw_release(w);
	return out;
}

static void test_document(void **state)
{
	struct jsonw w;
	char *out;

	(void)state;
	jsonw_init_mem(&w, 0, 0);
	jsonw_obj_begin(&w);
	jsonw_kint(&w, "i", INT64_MIN);
	jsonw_kint(&w, "j", INT64_MAX);
	jsonw_kdouble(&w, "d", 2.5);
	jsonw_kdouble(&w, "nan", NAN);
	jsonw_kbool(&w, "t", 1);
	jsonw_kbool(&w, "f", 0);
	jsonw_knull(&w, "n");
	jsonw_kstr(&w, "s", NULL);
	jsonw_key(&w, "a");
	jsonw_arr_begin(&w);
	jsonw_int(&w, 1);
	jsonw_arr_begin(&w);
	jsonw_arr_end(&w);
	jsonw_obj_begin(&w);
	jsonw_obj_end(&w);
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	out = finish_mem(&w, NNS_OK);
	assert_string_equal(out, "{\"i\":-9223372036854775808,\"j\":9223372036854775807,\"d\":2.5,"
				 "\"nan\":null,\"t\":true,\"f\":false,\"n\":null,\"s\":null,"
				 "\"a\":[1,[],{}]}\n");
	free(out);
}

static void test_pretty_parses(void **state)
{
	struct jsonw w;
	json_error_t je;
	json_t *j;
	char *out;

	(void)state;
	jsonw_init_mem(&w, 0, 3);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "rows");
	jsonw_arr_begin(&w);
	for (int i = 0; i < 3; i++) {
		jsonw_obj_begin(&w);
		jsonw_kint(&w, "k", i);
		jsonw_key(&w, "deep");
		jsonw_arr_begin(&w);
		jsonw_arr_begin(&w);
		jsonw_double(&w, 0.5);
		jsonw_arr_end(&w);
		jsonw_arr_end(&w);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_key(&w, "empty");
	jsonw_obj_begin(&w);
	jsonw_obj_end(&w);
	jsonw_obj_end(&w);
	out = finish_mem(&w, NNS_OK);
	assert_non_null(strchr(out, '\n'));
	assert_non_null(strstr(out, "\"empty\": {}"));
	j = json_loads(out, 0, &je);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(j, "rows")), 3);
	json_decref(j);
	free(out);
}

static void test_nesting_errors(void **state)
{
	struct jsonw w;

	(void)state;
	/* key at top level */
	jsonw_init_mem(&w, 0, 0);
	jsonw_key(&w, "x");
	finish_mem(&w, NNS_EINVAL);
	/* value in an object without a key */
	jsonw_init_mem(&w, 0, 0);
	jsonw_obj_begin(&w);
	jsonw_int(&w, 1);
	jsonw_obj_end(&w);
	finish_mem(&w, NNS_EINVAL);
	/* mismatched end */
	jsonw_init_mem(&w, 0, 0);
	jsonw_arr_begin(&w);
	jsonw_obj_end(&w);
	finish_mem(&w, NNS_EINVAL);
	/* key without value */
	jsonw_init_mem(&w, 0, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "x");
	jsonw_obj_end(&w);
	finish_mem(&w, NNS_EINVAL);
	/* unclosed */
	jsonw_init_mem(&w, 0, 0);
	jsonw_arr_begin(&w);
	finish_mem(&w, NNS_EINVAL);
	/* nothing written */
	jsonw_init_mem(&w, 0, 0);
	finish_mem(&w, NNS_EINVAL);
	/* two top-level values */
	jsonw_init_mem(&w, 0, 0);
	jsonw_int(&w, 1);
	jsonw_int(&w, 2);
	finish_mem(&w, NNS_EINVAL);
	/* too deep */
	jsonw_init_mem(&w, 0, 0);
	for (int i = 0; i < JSONW_MAX_DEPTH + 1; i++)
		jsonw_arr_begin(&w);
	finish_mem(&w, NNS_EINVAL);
}

static void test_mem_cap(void **state)
{
	struct jsonw w;
	char big[200];

	(void)state;
	memset(big, 'x', sizeof(big));
	jsonw_init_mem(&w, 64, 0);
	jsonw_strn(&w, big, sizeof(big));
	finish_mem(&w, NNS_ENOMEM);
}

static void test_file_backend(void **state)
{
	FILE *f = tmpfile();
	struct jsonw w;
	char buf[256];
	size_t n;

	(void)state;
	assert_non_null(f);
	jsonw_init_file(&w, f, 0);
	jsonw_arr_begin(&w);
	for (int i = 0; i < 20000; i++) /* more than the staging buffer */
		jsonw_str(&w, "abcdefgh");
	jsonw_arr_end(&w);
	assert_int_equal(jsonw_finish(&w, NULL), NNS_OK);
	jsonw_release(&w);
	/* "[" + 20000 strings of 10 bytes + 19999 commas + "]" + "\n" */
	assert_int_equal(ftell(f), 1 + 20000 * 10 + 19999 + 1 + 1);
	rewind(f);
	n = fread(buf, 1, 12, f);
	buf[n] = '\0';
	assert_string_equal(buf, "[\"abcdefgh\",");
	fclose(f);
}

static char *csv_of(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	out_csv_field(f, s);
	fclose(f);
	return buf;
}

static void test_csv_quoting(void **state)
{
	static const char *const cases[][2] = {
	    {"plain", "plain"},
	    {"", ""},
	    {"a,b", "\"a,b\""},
	    {"say \"hi\"", "\"say \"\"hi\"\"\""},
	    {"line\nbreak", "\"line\nbreak\""},
	    {"cr\r", "\"cr\r\""},
	    {" padded", "\" padded\""},
	    {"aten::conv2d", "aten::conv2d"},
	    {"[[1, 2], [3]]", "\"[[1, 2], [3]]\""},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = csv_of(cases[i][0]);

		assert_string_equal(got, cases[i][1]);
		free(got);
	}
}

static void test_sanitize(void **state)
{
	char b[256];

	(void)state;
	out_sanitize(b, sizeof(b), "worker0");
	assert_string_equal(b, "worker0");
	out_sanitize(b, sizeof(b), "host_1234");
	assert_string_equal(b, "host_1234");
	out_sanitize(b, sizeof(b), "..");
	assert_string_equal(b, "_..");
	out_sanitize(b, sizeof(b), ".");
	assert_string_equal(b, "_.");
	out_sanitize(b, sizeof(b), "");
	assert_string_equal(b, "_");
	out_sanitize(b, sizeof(b), "../../etc/passwd");
	assert_null(strchr(b, '/'));
	out_sanitize(b, sizeof(b), "a b\\c\n");
	assert_string_equal(b, "a_b_c_");
	out_sanitize(b, 8, "abcdefghijkl");
	assert_string_equal(b, "abcdefg");

	out_profile_dirname(b, sizeof(b), "../x", "1");
	assert_string_equal(b, "_.._x.1"); /* not hidden */
	out_profile_dirname(b, sizeof(b), "w", NULL);
	assert_string_equal(b, "w");
	out_profile_dirname(b, sizeof(b), "w", "../2");
	assert_string_equal(b, "w._.._2");
	assert_null(strchr(b, '/'));

	out_sanitize_rel(b, sizeof(b), "runs/a b/../c/./d");
	assert_string_equal(b, "runs/a_b/_../c/d");
	out_sanitize_rel(b, sizeof(b), "/abs//x/");
	assert_string_equal(b, "abs/x");
	out_sanitize_rel(b, sizeof(b), "");
	assert_string_equal(b, ".");
}

static void test_table_format(void **state)
{
	char b[64], t[64];

	(void)state;
	assert_string_equal(tb_fmt_int(b, sizeof(b), 0), "0");
	assert_string_equal(tb_fmt_int(b, sizeof(b), 999), "999");
	assert_string_equal(tb_fmt_int(b, sizeof(b), 1000), "1,000");
	assert_string_equal(tb_fmt_int(b, sizeof(b), -1234567), "-1,234,567");
	assert_string_equal(tb_fmt_us(b, sizeof(b), 12345678.0), "12,346");
	assert_string_equal(tb_fmt_us(b, sizeof(b), 3250.0), "3.25");
	assert_string_equal(tb_fmt_us(b, sizeof(b), 0.0), "0");
	assert_string_equal(tb_fmt_bytes(b, sizeof(b), 512), "512 B");
	assert_string_equal(tb_fmt_bytes(b, sizeof(b), 1536), "1.50 KiB");
	assert_string_equal(tb_fmt_bytes(b, sizeof(b), -3.0 * 1024 * 1024 * 1024), "-3.00 GiB");
	assert_string_equal(tb_fmt_pct(b, sizeof(b), 0.4567), "45.67%");
	assert_string_equal(tb_fmt_pct(b, sizeof(b), -1), "-");

	assert_int_equal(tb_display_width("µs…"), 3);
	tb_truncate(t, "abcdefghij", 5, TB_TRUNC_END);
	assert_string_equal(t, "abcd…");
	tb_truncate(t, "abcdefghij", 10, TB_TRUNC_END);
	assert_string_equal(t, "abcdefghij");
	tb_truncate(t, "abcdefghijklmnop", 9, TB_TRUNC_MIDDLE);
	assert_string_equal(t, "abcd…mnop");
	/* never splits a multi-byte character */
	tb_truncate(t, "ééééé", 3, TB_TRUNC_END);
	assert_string_equal(t, "éé…");
	assert_int_equal(tb_display_width(t), 3);
}

static void test_table_print(void **state)
{
	static const struct tb_col cols[] = {
	    {"Name", TB_LEFT, TB_TRUNC_END},
	    {"Value", TB_RIGHT, 0},
	};
	struct table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	tb_init(&t, cols, 2);
	tb_cell(&t, "short");
	tb_cell(&t, "1");
	tb_rule(&t);
	tb_cell(&t, "a very long name that will not fit in the width");
	tb_cell(&t, "%d", 12345);
	tb_cell(&t, "esc\033[31mred\xc2\x9b");
	tb_cell(&t, "x");
	tb_print(&t, f, 30, 0, 0);
	tb_release(&t);
	fclose(f);
	assert_non_null(strstr(buf, "Name"));
	assert_non_null(strstr(buf, "short"));
	assert_non_null(strstr(buf, "…"));
	assert_non_null(strstr(buf, "12345\n"));
	/* no escape sequence from a cell reaches the terminal */
	assert_null(strchr(buf, '\033'));
	assert_null(strstr(buf, "\xc2\x9b"));
	assert_non_null(strstr(buf, "esc [31mred"));
	/* every line fits in 30 columns */
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		assert_true(tb_display_width(line) <= 30);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escape_basic),  cmocka_unit_test(test_escape_utf8),
	    cmocka_unit_test(test_numbers),	  cmocka_unit_test(test_document),
	    cmocka_unit_test(test_pretty_parses), cmocka_unit_test(test_nesting_errors),
	    cmocka_unit_test(test_mem_cap),	  cmocka_unit_test(test_file_backend),
	    cmocka_unit_test(test_csv_quoting),	  cmocka_unit_test(test_sanitize),
	    cmocka_unit_test(test_table_format),  cmocka_unit_test(test_table_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
