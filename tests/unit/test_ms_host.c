/*
 * test_ms_host.c - MindSpore's host_info analysis (importers/ms_host.c:
 * the CSV read as Python's csv.DictReader reads it; analysis/ms_host.c:
 * _parse_host_info and _calculate_dataset_execution_time) and the Python
 * formatting helpers it is written with (num_pyint, num_pyfloat,
 * JSON_ESC_ASCII). Expected values are hand-computed from MindSpore's code
 * (profiling.py, ../shared/seeds/004_*) and Python's documented behaviour
 * (int(), repr(float), csv, json.dumps ensure_ascii); the byte-for-byte
 * comparison with MindSpore's own code run by python3 is
 * tests/e2e/ms_hostinfo.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ms_host.h"
#include "common/jsonesc.h"
#include "common/num.h"

#define HDR                                                                                        \
	"tid,pid,parent_pid,module_name,event,stage,level,start_end,custom_info,memory_usage(kB)," \
	"time_stamp(us)\n"

static const char *pyf(double v)
{
	static char b[NUM_PYFLOAT_MAX];

	num_pyfloat(v, b, sizeof(b));
	return b;
}

static void test_pyfloat(void **st)
{
	(void)st;
	assert_string_equal(pyf(400.0 / 3.0), "133.33333333333334");
	assert_string_equal(pyf(10.0), "10.0");
	assert_string_equal(pyf(-5.0), "-5.0");
	assert_string_equal(pyf(2.5), "2.5");
	assert_string_equal(pyf(0.1), "0.1");
	assert_string_equal(pyf(1.0 / 3.0), "0.3333333333333333");
	assert_string_equal(pyf(5.0 / 3.0), "1.6666666666666667");
	assert_string_equal(pyf(2e16), "2e+16");
	assert_string_equal(pyf(1e16), "1e+16");
	assert_string_equal(pyf(1234567890123456.0), "1234567890123456.0");
	assert_string_equal(pyf(9999999999999998.0), "9999999999999998.0");
	assert_string_equal(pyf(0.0001), "0.0001");
	assert_string_equal(pyf(0.00001), "1e-05");
	assert_string_equal(pyf(0.000123), "0.000123");
	assert_string_equal(pyf(1.5e-7), "1.5e-07");
	assert_string_equal(pyf(123456789012345678.0), "1.2345678901234568e+17");
	assert_string_equal(pyf(1e22), "1e+22");
	assert_string_equal(pyf(0.0), "0.0");
	assert_string_equal(pyf(-0.0), "-0.0");
	assert_string_equal(pyf(1e308 * 10), "inf");
}

static int pyi(const char *s, int64_t *v)
{
	return num_pyint(s, strlen(s), v);
}

static void test_pyint(void **st)
{
	int64_t v = 0;

	(void)st;
	assert_int_equal(pyi(" 12 ", &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(pyi("1_000", &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(pyi("+7", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(pyi("-007", &v), 0);
	assert_int_equal(v, -7);
	assert_int_equal(pyi("\t5\f", &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(pyi("", &v), -1);
	assert_int_equal(pyi("12a", &v), -1);
	assert_int_equal(pyi("_1", &v), -1);
	assert_int_equal(pyi("1__0", &v), -1);
	assert_int_equal(pyi("1_", &v), -1);
	assert_int_equal(pyi("- 1", &v), -1);
	assert_int_equal(pyi("1.0", &v), -1);
	assert_int_equal(pyi("4611686018427387903", &v), 0); /* 2^62 - 1 */
	assert_int_equal(pyi("4611686018427387904", &v), -2);
	assert_int_equal(pyi("\xef\xbc\x91", &v), -2); /* fullwidth 1: Python reads it */
}

static void put_buf(void *ctx, const char *s, size_t n)
{
	strncat((char *)ctx, s, n);
}

static void test_json_ascii(void **st)
{
	char out[256] = "";
	static const char in[] = "\xe8\xaf\xbb\xf0\x9f\x9a\x80\x7f\"\\\n\x01 ~";

	(void)st;
	json_escape(in, sizeof(in) - 1, JSON_ESC_ASCII, put_buf, out);
	assert_string_equal(out, "\\u8bfb\\ud83d\\ude80\\u007f\\\"\\\\\\n\\u0001 ~");
	out[0] = '\0';
	json_escape("\x7f\xe8\xaf\xbb", 4, 0, put_buf, out); /* unchanged without the flag */
	assert_string_equal(out, "\x7f\xe8\xaf\xbb");
}

static const char *val(const struct ms_host_csv *h, size_t row, int c)
{
	return ms_host_val(h, &h->rows.v[row], c);
}

static void test_reader(void **st)
{
	static const char in[] = "tid,pid,event,custom_info\r\n"
				 "1,2,\"a,\"\"b\"\"\r\nc\",x\"y\"z\r"
				 "\n"
				 "3,4,p\"q,\"r\"s\n"
				 "5\n"
				 "6,7,e,f,g,h\n"
				 "8,9,\"open";
	struct ms_host_csv h;
	struct nns_err err;

	(void)st;
	nns_err_clear(&err);
	assert_int_equal(ms_host_parse(&h, in, sizeof(in) - 1, &err), NNS_OK);
	assert_int_equal(h.rows.n, 5);
	/* quoted: comma, doubled quotes, "\r\n" inside quotes read as "\n" */
	assert_string_equal(val(&h, 0, MSH_EVENT), "a,\"b\"\nc");
	/* an unquoted field keeps its quotes */
	assert_string_equal(val(&h, 0, MSH_CUSTOM), "x\"y\"z");
	assert_string_equal(val(&h, 1, MSH_EVENT), "p\"q");
	/* text after a closing quote is kept (not strict) */
	assert_string_equal(val(&h, 1, MSH_CUSTOM), "rs");
	/* a short row: None; a column the header lacks: absent */
	assert_int_equal(h.rows.v[2].v[MSH_PID], MSH_NONE);
	assert_int_equal(h.rows.v[2].v[MSH_LEVEL], MSH_ABSENT);
	assert_int_equal(h.rows.v[2].extra, 0);
	assert_int_equal(h.rows.v[3].extra, 1);
	/* end of file inside quotes: what was read */
	assert_string_equal(val(&h, 4, MSH_EVENT), "open");
	assert_int_equal(h.header_foreign, 0);
	ms_host_release(&h);

	assert_int_equal(ms_host_parse(&h, "a\xff", 2, &err), NNS_EFORMAT);
	assert_int_equal(ms_host_parse(&h, "a\0b", 3, &err), NNS_EFORMAT);
	{
		size_t n = MSH_FIELD_LIMIT + 8;
		char *big = malloc(n);

		assert_non_null(big);
		memcpy(big, "tid\n", 4);
		memset(big + 4, 'x', n - 4);
		assert_int_equal(ms_host_parse(&h, big, n, &err), NNS_EFORMAT);
		assert_int_equal(ms_host_parse(&h, big, MSH_FIELD_LIMIT + 4, &err), NNS_OK);
		ms_host_release(&h);
		free(big);
	}
}

static void compute(const char *in, struct ms_host_csv *h, struct ms_host_result *r)
{
	struct nns_err err;

	nns_err_clear(&err);
	assert_int_equal(ms_host_parse(h, in, strlen(in), &err), NNS_OK);
	assert_int_equal(ms_host_compute(h, r, &err), NNS_OK);
}

static void test_timeline_memory(void **st)
{
	static const char in[] = HDR "11,100,1,F,Compile,Parse,1,0,,2048,1000\n"
				     "11,100,1,F,Compile,Parse,1,0,,0,1100\n" /* start again */
				     "12,100,1,F,A,B,1,0,,0,1200\n"
				     "11,100,1,F,Compile,Parse,1,1,,3072,1500\n"
				     "12,100,1,Dataset,Get,X,1,2,,0,1700\n"
				     "t_9,100,1,F,E_v,S,1,0,,0,1800\n"
				     "12,100,1,F,A,B,1,0,,0,0\n" /* time 0: no timeline */
				     "12,100,1,F,A,B,1,1,,-1,1900\n";
	struct ms_host_csv h;
	struct ms_host_result r;

	(void)st;
	compute(in, &h, &r);
	assert_int_equal(r.parse_raised, 0);
	assert_int_equal(r.mem.n, 2);
	assert_int_equal(r.mem.v[0], 0);
	assert_int_equal(r.mem.v[1], 3);
	assert_int_equal(r.mem_peak_kb, 3072);
	assert_int_equal(r.tl.n, 4);
	/* the second start replaced the first's time: 1100, 400 us */
	assert_int_equal(r.tl.v[0].kind, MSH_X);
	assert_int_equal(r.tl.v[0].ts, 1100);
	assert_int_equal(r.tl.v[0].dur, 400);
	assert_int_equal(r.tl.v[1].kind, MSH_I);
	assert_int_equal(r.tl.v[1].ts, 1700);
	/* A::B closed by its end at 1900 from its start at 1200 */
	assert_int_equal(r.tl.v[2].kind, MSH_X);
	assert_int_equal(r.tl.v[2].ts, 1200);
	assert_int_equal(r.tl.v[2].dur, 700);
	/* E_v_S_t_9_100 split at its last two '_': name E_v_S_t, tid 9 */
	assert_int_equal(r.tl.v[3].kind, MSH_B);
	assert_string_equal(strpool_get(&r.strings, r.tl.v[3].name), "E_v_S_t");
	assert_string_equal(strpool_get(&r.strings, r.tl.v[3].tid), "9");
	assert_string_equal(strpool_get(&r.strings, r.tl.v[3].pid), "100");
	assert_int_equal(r.tl.v[3].ts, 1800);
	assert_true(ms_host_writes_memory(&r) && ms_host_writes_timeline(&r) &&
		    ms_host_writes_dataset(&r));
	ms_host_result_release(&r);
	ms_host_release(&h);
}

static void test_dataset(void **st)
{
	static const char in[] = HDR "12,100,1,Dataset,Batch,Get,1,0,,0,1000\n"
				     "12,100,1,Dataset,Batch,Get,1,1,,0,1100\n"
				     "12,100,1,Dataset,Batch,Get,1,0,,0,2000\n"
				     "12,100,1,Dataset,Batch,Get,1,1,,0,2250\n"
				     "13,100,1,Dataset,Map,Run,1,0,,0,10\n"
				     "13,100,1,Dataset,Map,Run,1,1,k,0,5\n"
				     "12,100,1,Dataset,Batch,Get,1,0,,0,3000\n"
				     "12,100,1,Dataset,Batch,Get,1,1,,0,3050\n"
				     "12,100,1,Framework,Batch,Get,1,0,,0,4000\n"
				     "12,100,1,Framework,Batch,Get,1,1,,0,9000\n"
				     "14,100,1,Dataset,Open,Only,1,0,,0,7\n";
	struct ms_host_csv h;
	struct ms_host_result r;

	(void)st;
	compute(in, &h, &r);
	assert_int_equal(r.ds.n, 2);
	assert_string_equal(val(&h, r.ds.v[0].row, MSH_EVENT), "Batch");
	assert_int_equal(r.ds.v[0].count, 3);
	/* 100; 100 + (250 - 100) / 2 = 175; 175 + (50 - 175) / 3 */
	assert_string_equal(pyf(r.ds.v[0].avg), "133.33333333333334");
	assert_string_equal(val(&h, r.ds.v[1].row, MSH_CUSTOM), "k");
	assert_string_equal(pyf(r.ds.v[1].avg), "-5.0");
	assert_int_equal(r.ds_unmatched_starts, 1);
	ms_host_result_release(&r);
	ms_host_release(&h);
}

static void test_raises(void **st)
{
	struct ms_host_csv h;
	struct ms_host_result r;

	(void)st;
	/* int('12a'): ValueError in _parse_host_info, nothing written */
	compute(HDR "1,2,3,F,E,S,1,0,,5,100\n1,2,3,F,E,S,1,1,,5,12a\n", &h, &r);
	assert_int_equal(r.parse_raised, 1);
	assert_int_equal(r.parse_raised_row, 1);
	assert_false(ms_host_writes_memory(&r) || ms_host_writes_timeline(&r) ||
		     ms_host_writes_dataset(&r));
	ms_host_result_release(&r);
	ms_host_release(&h);
	/* no 'level' column: every row a KeyError in _parse_host_info (skipped),
	 * the dataset pass does not look it up */
	compute("tid,pid,module_name,event,stage,start_end,custom_info,memory_usage(kB),"
		"time_stamp(us)\n1,2,Dataset,E,S,0,,9,100\n1,2,Dataset,E,S,1,,9,130\n",
		&h, &r);
	assert_int_equal(r.tl.n, 0);
	assert_int_equal(r.mem.n, 0);
	assert_int_equal(r.ds.n, 1);
	assert_string_equal(pyf(r.ds.v[0].avg), "30.0");
	ms_host_result_release(&r);
	ms_host_release(&h);
	/* a foreign column: DictWriter raises on the first memory row */
	compute("tid,pid,parent_pid,module_name,event,stage,level,start_end,custom_info,"
		"memory_usage(kB),time_stamp(us),x\n1,2,3,F,E,S,1,0,,0,100,a\n"
		"1,2,3,F,E,S,1,1,,7,130,b\n",
		&h, &r);
	assert_int_equal(r.mem_raise_at, 0);
	assert_true(ms_host_writes_memory(&r));
	assert_false(ms_host_writes_timeline(&r) || ms_host_writes_dataset(&r));
	ms_host_result_release(&r);
	ms_host_release(&h);
	/* a Dataset end whose custom_info is None (a short row, custom_info
	 * last): the title's concatenation raises, only the dataset file is lost */
	compute("tid,pid,parent_pid,module_name,event,stage,level,start_end,memory_usage(kB),"
		"time_stamp(us),custom_info\n1,2,3,Dataset,E,S,1,0,0,100,c\n"
		"1,2,3,Dataset,E,S,1,1,0,130\n",
		&h, &r);
	assert_int_equal(r.parse_raised, 0);
	assert_int_equal(r.ds_raised, 1);
	assert_true(ms_host_writes_timeline(&r));
	assert_false(ms_host_writes_dataset(&r));
	ms_host_result_release(&r);
	ms_host_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pyfloat),	    cmocka_unit_test(test_pyint),
	    cmocka_unit_test(test_json_ascii),	    cmocka_unit_test(test_reader),
	    cmocka_unit_test(test_timeline_memory), cmocka_unit_test(test_dataset),
	    cmocka_unit_test(test_raises),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
