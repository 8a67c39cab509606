/*
 * test_nnst_run.c - run discovery of nnscope traces: <worker>[.<k>].nnst
 * files are workers (the numeric suffix a span) beside Kineto files, and
 * the MindSpore host_info CSVs of the run (in its directory and in its
 * host_info/ subdirectory) are listed with it. Files are judged by their
 * content: a .nnst without the NNSTRACE magic is listed as skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "importers/run.h"

/* A file whose content matches its kind: the NNSTRACE magic for .nnst,
 * a one-event Kineto document for .json, "x" otherwise. */
static void touch(const char *dir, const char *name)
{
	char path[512];
	size_t n = strlen(name);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	if (n > 5 && strcmp(name + n - 5, ".nnst") == 0)
		fputs("NNSTRACE", f);
	else if (n > 5 && strcmp(name + n - 5, ".json") == 0)
		fputs("{\"traceEvents\": [{\"ph\": \"X\"}]}", f);
	else
		fputs("x", f);
	fclose(f);
}

static void test_discover(void **state)
{
	char dir[] = "/tmp/nnst-run.XXXXXX", sub[600], cmd[700];
	struct run_set rs;
	struct nns_err err;
	const struct run *r;
	const struct run_worker *w;
	char wk[64], sfx[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/host_info", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	touch(dir, "node1_100.nnst");
	touch(dir, "node1_100.10.nnst");
	touch(dir, "node1_100.2.nnst");
	touch(dir, "node2_200.nnst");
	touch(dir, "worker0.pt.trace.json");
	touch(dir, "host_info_7.csv");
	touch(dir, "notes.csv");
	touch(sub, "host_info_0.csv");
	touch(sub, "timeline_0.json");
	snprintf(sub, sizeof(sub), "%s/node3_300.nnst", dir);
	{
		FILE *f = fopen(sub, "w"); /* a .nnst that is not one */

		assert_non_null(f);
		fputs("{}", f);
		fclose(f);
	}
	snprintf(sub, sizeof(sub), "%s/host_info", dir);

	assert_int_equal(run_discover(&rs, dir, NULL, &err), NNS_OK);
	/* host_info/timeline_0.json is a trace of its own run */
	assert_int_equal(rs.runs.n, 2);
	assert_string_equal(rs.runs.v[0].name, "host_info");
	r = &rs.runs.v[1];
	assert_int_equal(r->workers.n, 3);
	/* .nnst ordinals sort as numbers: <w>.nnst is span 1, <w>.2.nnst span 2 */
	w = run_find_worker(r, "node1_100");
	assert_non_null(w);
	assert_int_equal(w->spans.n, 3);
	assert_string_equal(w->spans.v[0].name, "1");
	assert_null(w->spans.v[0].suffix);
	assert_string_equal(w->spans.v[1].name, "2");
	assert_string_equal(w->spans.v[1].suffix, "2");
	assert_string_equal(w->spans.v[2].name, "3");
	assert_string_equal(w->spans.v[2].suffix, "10");
	assert_null(run_find_worker(r, "node3_300"));
	assert_int_equal(rs.skipped.n, 1);
	assert_non_null(strstr(rs.skipped.v[0].path, "node3_300.nnst"));
	assert_non_null(strstr(rs.skipped.v[0].reason, "NNSTRACE"));
	w = run_find_worker(r, "node2_200");
	assert_non_null(w);
	assert_null(w->spans.v[0].name);
	assert_non_null(run_find_worker(r, "worker0"));
	assert_int_equal(r->host_info.n, 2);
	assert_non_null(strstr(r->host_info.v[0], "host_info/host_info_0.csv"));
	assert_non_null(strstr(r->host_info.v[1], "host_info_7.csv"));
	run_set_release(&rs);

	/* a single .nnst file */
	snprintf(sub, sizeof(sub), "%s/node2_200.nnst", dir);
	assert_int_equal(run_discover(&rs, sub, NULL, &err), NNS_OK);
	assert_int_equal(rs.runs.v[0].workers.n, 1);
	assert_string_equal(rs.runs.v[0].workers.v[0].name, "node2_200");
	assert_int_equal(rs.runs.v[0].host_info.n, 2);
	run_set_release(&rs);

	assert_int_equal(run_match_nnst("a.12.nnst", wk, sizeof(wk), sfx, sizeof(sfx)), 1);
	assert_string_equal(wk, "a");
	assert_string_equal(sfx, "12");
	assert_int_equal(run_match_nnst(".nnst", wk, sizeof(wk), sfx, sizeof(sfx)), 0);
	assert_int_equal(run_match_nnst("a.nnst.gz", wk, sizeof(wk), sfx, sizeof(sfx)), 0);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_discover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
