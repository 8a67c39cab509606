/*
 * test_nnst_hostinfo.c - MindSpore host_info CSVs: RFC 4180 parsing
 * (quoted custom_info with commas, doubled quotes, a line break inside
 * quotes, CRLF, reordered columns), bad rows skipped and counted, the pid
 * filter, and the analysis (start/end pairing per event/stage/tid/pid,
 * averages, unmatched starts and ends, the memory curve with its peak).
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
#include <unistd.h>

#include "analysis/analysis.h"
#include "importers/hostinfo.h"
#include "output/output.h"
#include "testutil.h"

static const char CSV[] =
    "tid,pid,parent_pid,module_name,event,stage,level,start_end,custom_info,memory_usage(kB),"
    "time_stamp(us)\r\n"
    "11,100,1,Dataset,GetNext,Batch,1,0,\"{{a:1}{b:2,3}}\",1000,5000\r\n"
    "11,100,1,Dataset,GetNext,Batch,1,1,\"say \"\"hi\"\", then\nnext line\",1500,5030\r\n"
    "11,100,1,Dataset,GetNext,Batch,1,0,,0,6000\r\n"
    "11,100,1,Dataset,GetNext,Batch,1,1,,0,6010\r\n"
    "12,100,1,Dataset,GetNext,Batch,1,1,,0,6020\r\n"  /* an end without start */
    "12,100,1,Graph,Compile,Build,0,0,,2500,7000\r\n" /* never ends */
    "12,100,1,Graph,Step,Run,0,2,,0,7100\r\n"	      /* an instant */
    "13,200,100,Dataset,Map,Decode,1,0,,0,8000\r\n"   /* a child process */
    "13,200,100,Dataset,Map,Decode,1,1,,0,8100\r\n"
    "14,300,1,Dataset,Map,Decode,1,0,,0,9000\r\n" /* another process */
    "14,300,1,Dataset,Map,Decode,1,1,,0,9400\r\n"
    "bad,row\r\n"
    "15,100,1,Dataset,X,Y,1,7,,0,9500\r\n" /* start_end out of range */
    "15,100,1,Dataset,X,Y,1,1,,0,notanumber\r\n"
    "\r\n"
    "16,100,1,Dataset,Mem,Only,1,2,,4000,0"; /* memory only, no newline at the end */

static const struct an_host_row *row(const struct an_profile *p, const char *event,
				     const char *stage)
{
	for (size_t i = 0; i < p->hostinfo.rows.n; i++) {
		const struct an_host_row *r = &p->hostinfo.rows.v[i];

		if (strcmp(model_str(p->m, r->event), event) == 0 &&
		    strcmp(model_str(p->m, r->stage), stage) == 0)
			return r;
	}
	return NULL;
}

static void test_parse(void **state)
{
	struct model m;
	struct nns_err err;

	(void)state;
	model_init(&m);
	nns_err_clear(&err);
	assert_int_equal(hostinfo_load_buffer(CSV, sizeof(CSV) - 1, "h.csv", &m, -1, &err), NNS_OK);
	assert_int_equal(m.host.n, 12);
	assert_int_equal(m.diag.events_skipped, 3);
	assert_non_null(strstr(m.diag.first_problem, "h.csv: record"));
	assert_string_equal(model_str(&m, m.host.v[0].custom), "{{a:1}{b:2,3}}");
	assert_string_equal(model_str(&m, m.host.v[1].custom), "say \"hi\", then\nnext line");
	assert_int_equal(m.host.v[1].memory_kb, 1500);
	assert_int_equal(m.host.v[1].ts_us, 5030);
	assert_int_equal(m.host.v[1].start_end, 1);
	assert_int_equal(m.host.v[0].tid, 11);
	assert_int_equal(m.host.v[0].pid, 100);
	assert_int_equal(m.host.v[0].parent_pid, 1);
	assert_string_equal(model_str(&m, m.host.v[0].module), "Dataset");
	assert_string_equal(model_str(&m, m.host.v[0].event), "GetNext");
	assert_string_equal(model_str(&m, m.host.v[0].stage), "Batch");
	assert_int_equal(m.host.v[11].memory_kb, 4000);
	assert_int_equal(m.host.v[11].ts_us, 0);
	model_release(&m);

	/* pid filter: process 100 and its children */
	model_init(&m);
	assert_int_equal(hostinfo_load_buffer(CSV, sizeof(CSV) - 1, "h.csv", &m, 100, &err),
			 NNS_OK);
	assert_int_equal(m.host.n, 10);
	model_release(&m);

	/* reordered columns, LF only */
	model_init(&m);
	{
		static const char csv2[] =
		    "time_stamp(us),event,stage,module_name,start_end,extra\n"
		    "10,E,S,M,0,x\n20,E,S,M,1,y\n";

		assert_int_equal(hostinfo_load_buffer(csv2, sizeof(csv2) - 1, "b", &m, -1, &err),
				 NNS_OK);
		assert_int_equal(m.host.n, 2);
		assert_int_equal(m.host.v[1].ts_us, 20);
		assert_int_equal(m.host.v[1].tid, -1);
	}
	model_release(&m);

	/* not a host_info CSV */
	model_init(&m);
	assert_int_equal(hostinfo_load_buffer("a,b\n1,2\n", 8, "c", &m, -1, &err), NNS_EFORMAT);
	assert_int_equal(hostinfo_load_buffer("", 0, "d", &m, -1, &err), NNS_EFORMAT);
	model_release(&m);

	assert_int_equal(hostinfo_file_rank("host_info_3.csv"), 3);
	assert_int_equal(hostinfo_file_rank("host_info_.csv"), -1);
	assert_int_equal(hostinfo_file_rank("host_info_3.csv.bak"), -1);
	assert_int_equal(hostinfo_file_rank("timeline_3.json"), -1);
}

static void test_analysis(void **state)
{
	struct model m;
	struct nns_err err;
	struct an_profile p;
	const struct an_host_row *r;
	char path[64];
	FILE *f;

	(void)state;
	/* through a file, in blocks */
	snprintf(path, sizeof(path), "/tmp/nnst-hostinfo.XXXXXX");
	close(mkstemp(path));
	f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(CSV, 1, sizeof(CSV) - 1, f);
	fclose(f);
	model_init(&m);
	assert_int_equal(hostinfo_load_file(path, &m, -1, &err), NNS_OK);
	unlink(path);
	assert_int_equal(m.host.n, 12);
	m.mono_offset_ns = 1000000; /* the trace's clock is known */
	assert_int_equal(model_finalize(&m, &err), NNS_OK);
	assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);

	r = row(&p, "GetNext", "Batch");
	assert_non_null(r);
	assert_int_equal(r->count, 2);
	assert_int_equal(r->total_us, 40);
	assert_true(fabs(r->avg_us - 20.0) < 1e-9);
	assert_int_equal(r->min_us, 10);
	assert_int_equal(r->max_us, 30);
	r = row(&p, "Map", "Decode");
	assert_non_null(r);
	assert_int_equal(r->count, 2); /* pid 200 and pid 300 pair separately */
	assert_int_equal(r->total_us, 500);
	assert_null(row(&p, "Compile", "Build"));
	assert_int_equal(p.hostinfo.unmatched_ends, 1);
	assert_int_equal(p.hostinfo.unmatched_starts, 1);
	assert_int_equal(p.hostinfo.instants, 1);
	assert_int_equal(p.hostinfo.records, 11);
	/* rows by total time */
	assert_string_equal(model_str(&m, p.hostinfo.rows.v[0].event), "Map");
	/* memory: 1000, 1500, 2500, 4000 kB; peak 4000 */
	assert_int_equal(p.hostinfo.memory.n, 4);
	assert_int_equal(p.hostinfo.peak_kb, 4000);
	assert_true(p.hostinfo.aligned);
	assert_int_equal(p.hostinfo.memory.v[1].ts, 5000 * 1000 + 1000000); /* sorted by time */
	assert_int_equal(p.hostinfo.memory.v[0].ts, 0 + 1000000);
	{
		json_t *j = tu_view_json(out_json_hostinfo, &p);

		assert_non_null(j);
		assert_int_equal(json_array_size(json_object_get(j, "events")), 2);
		assert_int_equal(
		    json_integer_value(json_object_get(json_object_get(j, "memory"), "peak_kb")),
		    4000);
		json_decref(j);
	}
	an_profile_release(&p);
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_analysis),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
