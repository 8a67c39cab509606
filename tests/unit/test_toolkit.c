/*
 * test_toolkit.c - the src/common toolkit: byte buffer, little-endian
 * reads, number parsing, clocks, mkdirs, the JSON escaper and the string
 * hash, each on hand-made cases and their edges (caps, overflow, invalid
 * UTF-8).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/hmap.h"
#include "common/jsonesc.h"
#include "common/le.h"
#include "common/num.h"
#include "common/strhash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_buf(void **st)
{
	struct buf b;
	char big[300];
	char *s;

	(void)st;
	buf_init(&b, 0);
	assert_int_equal(buf_puts(&b, "ab"), 0);
	assert_int_equal(buf_putc(&b, 'c'), 0);
	assert_int_equal(buf_append(&b, "de", 2), 0);
	assert_int_equal(buf_printf(&b, "-%d-%s", 42, "x"), 0);
	assert_string_equal(b.p, "abcde-42-x");
	assert_int_equal(b.len, 10);
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(buf_printf(&b, "%s", big), 0); /* longer than the room left */
	assert_int_equal(b.len, 10 + 299);
	assert_int_equal(b.p[b.len], '\0');
	assert_memory_equal(b.p + 10, big, 299);
	buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.p, "");
	assert_int_equal(buf_puts(&b, "kept"), 0);
	s = buf_take(&b);
	assert_string_equal(s, "kept");
	assert_null(b.p);
	assert_int_equal(b.len, 0);
	free(s);
	s = buf_take(&b); /* empty: "" */
	assert_non_null(s);
	assert_string_equal(s, "");
	free(s);

	/* the cap counts the NUL; a refused append keeps what was there */
	buf_init(&b, 8);
	assert_int_equal(buf_puts(&b, "1234567"), 0);
	assert_int_equal(buf_putc(&b, '8'), NNS_ENOMEM);
	assert_int_equal(buf_printf(&b, "%d", 9), NNS_ENOMEM);
	assert_string_equal(b.p, "1234567");
	buf_free(&b);
	assert_null(b.p);

	s = str_printf("%s=%d", "n", 7);
	assert_string_equal(s, "n=7");
	free(s);
}

static void test_le(void **st)
{
	const uint8_t p[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88, 0xff};

	(void)st;
	assert_int_equal(le16(p), 0x0201);
	assert_int_equal(le32(p), 0x04030201u);
	assert_true(le64(p) == 0x8807060504030201ull);
	assert_int_equal(le32(p + 5), 0xff880706u); /* unaligned */
}

static void test_num(void **st)
{
	struct nns_err err;
	int64_t i = 5;
	uint64_t u = 5;
	double d = 5;

	(void)st;
	assert_int_equal(num_i64("123", 3, &i, NULL), 0);
	assert_int_equal(i, 123);
	assert_int_equal(num_i64("-42xyz", 3, &i, NULL), 0); /* the span only */
	assert_int_equal(i, -42);
	assert_int_equal(num_i64("+7", 2, &i, NULL), 0);
	assert_int_equal(i, 7);
	assert_int_equal(num_i64("9223372036854775807", 19, &i, NULL), 0);
	assert_true(i == INT64_MAX);
	assert_int_equal(num_i64("-9223372036854775808", 20, &i, NULL), 0);
	assert_true(i == INT64_MIN);
	i = 5;
	assert_int_equal(num_i64("9223372036854775808", 19, &i, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "range"));
	assert_int_equal(num_i64("", 0, &i, NULL), NNS_EFORMAT);
	assert_int_equal(num_i64("-", 1, &i, NULL), NNS_EFORMAT);
	assert_int_equal(num_i64(" 1", 2, &i, NULL), NNS_EFORMAT);
	assert_int_equal(num_i64("1 ", 2, &i, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "'1 '"));
	assert_int_equal(num_i64("1.5", 3, &i, NULL), NNS_EFORMAT);
	assert_int_equal(i, 5); /* unchanged on error */

	assert_int_equal(num_u64("18446744073709551615", 20, &u, NULL), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(num_u64("18446744073709551616", 20, &u, NULL), NNS_EFORMAT);
	assert_int_equal(num_u64("-1", 2, &u, NULL), NNS_EFORMAT);
	assert_true(u == UINT64_MAX);

	assert_int_equal(num_double("1.25e2", 6, &d, NULL), 0);
	assert_true(d == 125.0);
	assert_int_equal(num_double("-0.5,", 4, &d, NULL), 0);
	assert_true(d == -0.5);
	assert_int_equal(num_double("1e999", 5, &d, NULL), NNS_EFORMAT);
	assert_int_equal(num_double("1.5x", 4, &d, NULL), NNS_EFORMAT);
	assert_int_equal(num_double(" 1", 2, &d, NULL), NNS_EFORMAT);
	assert_int_equal(num_double("", 0, &d, NULL), NNS_EFORMAT);
	assert_true(d == -0.5);
}

static void test_clock(void **st)
{
	int64_t a = clock_mono_ns(), b = clock_mono_ns();
	struct timespec t = clock_deadline(CLOCK_MONOTONIC, 1500);

	(void)st;
	assert_true(b >= a);
	assert_true(clock_real_ns() > (int64_t)1500000000 * 1000000000); /* after 2017 */
	assert_true(t.tv_nsec >= 0 && t.tv_nsec < 1000000000L);
	assert_true((int64_t)t.tv_sec * 1000000000 + t.tv_nsec >= b + 1500000000);
}

static void test_mkdirs(void **st)
{
	char dir[] = "/tmp/nns-toolkit-XXXXXX", p[256], f[256];
	struct nns_err err;
	struct stat s;
	FILE *fp;

	(void)st;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/a//b/c/", dir);
	assert_int_equal(fs_mkdirs(p, &err), 0);
	snprintf(p, sizeof(p), "%s/a/b/c", dir);
	assert_int_equal(stat(p, &s), 0);
	assert_true(S_ISDIR(s.st_mode));
	assert_int_equal(fs_mkdirs(p, NULL), 0); /* exists: fine */
	snprintf(f, sizeof(f), "%s/file", dir);
	fp = fopen(f, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(fs_mkdirs(f, &err), NNS_EIO);
	assert_non_null(strstr(err.msg, "not a directory"));
	snprintf(p, sizeof(p), "%s/file/sub", dir);
	assert_int_equal(fs_mkdirs(p, &err), NNS_EIO);
	assert_non_null(strstr(err.msg, "cannot create directory"));
	assert_int_equal(fs_mkdirs("", &err), NNS_EINVAL);
	unlink(f);
	rmdir(strcat(strcpy(p, dir), "/a/b/c"));
	rmdir(strcat(strcpy(p, dir), "/a/b"));
	rmdir(strcat(strcpy(p, dir), "/a"));
	rmdir(dir);
}

static void put_buf(void *ctx, const char *s, size_t n)
{
	assert_int_equal(buf_append(ctx, s, n), 0);
}

static void esc(const char *in, size_t n, unsigned flags, const char *want)
{
	struct buf b = {0};

	json_escape(in, n, flags, put_buf, &b);
	assert_string_equal(b.p ? b.p : "", want);
	buf_free(&b);
}

static void test_json_escape(void **st)
{
	char small[8];

	(void)st;
	esc("plain", 5, 0, "plain");
	esc("", 0, 0, "");
	esc("a\"b\\c", 5, 0, "a\\\"b\\\\c");
	esc("\n\t\r\b\f\x01\x1f", 7, 0, "\\n\\t\\r\\b\\f\\u0001\\u001f");
	esc("x\0y", 3, 0, "x\\u0000y");
	esc("caf\xc3\xa9", 5, 0, "caf\xc3\xa9");		   /* valid UTF-8 kept */
	esc("\xe2\x80\xa8|\xe2\x80\xa9", 7, 0, "\\u2028|\\u2029"); /* JS line breaks */
	esc("a\xffz", 3, 0, "a\\ufffdz");			   /* invalid byte */
	esc("\xc0\xaf", 2, 0, "\\ufffd\\ufffd");		   /* overlong */
	esc("\xed\xa0\x80", 3, 0, "\\ufffd\\ufffd\\ufffd");	   /* surrogate */
	esc("\xe2\x82", 2, 0, "\\ufffd\\ufffd");		   /* cut short */
	esc("a\xffz\n", 4, JSON_ESC_KEEP_BYTES, "a\xffz\\n");
	assert_int_equal(utf8_seq((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
	assert_int_equal(utf8_seq((const unsigned char *)"\xf4\x90\x80\x80", 4), 0);

	assert_int_equal(json_escape_str(small, sizeof(small), "a\"b", 0), 0);
	assert_string_equal(small, "a\\\"b");
	assert_int_equal(json_escape_str(small, sizeof(small), "abc\ndefgh", 0), -1);
	assert_string_equal(small, "abc\\n"); /* whole escapes only */
}

static void test_strhash(void **st)
{
	struct hmap h;
	int is_new;

	(void)st;
	/* FNV-1a 64 with nnscope's basis (strhash.h): the values on disk */
	assert_true(strhash("") == 0x14650fb0739d0383ull);
	assert_true(strhash("a") == 0x44bd8ad473cd9906ull);
	assert_true(strhash("foobar") == 0x88fad7c0a8ff07f2ull);
	assert_true(strhash_add(strhash_add(STRHASH_INIT, "foo", 3), "bar", 3) ==
		    strhash("foobar"));
	hmap_init(&h);
	*hmap_put(&h, strhash("conv"), 0, &is_new) = 7;
	assert_true(is_new);
	assert_int_equal(*hmap_get(&h, strhash("conv")), 7);
	assert_null(hmap_get(&h, strhash("gemm")));
	hmap_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_buf),	    cmocka_unit_test(test_le),
	    cmocka_unit_test(test_num),	    cmocka_unit_test(test_clock),
	    cmocka_unit_test(test_mkdirs),  cmocka_unit_test(test_json_escape),
	    cmocka_unit_test(test_strhash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
