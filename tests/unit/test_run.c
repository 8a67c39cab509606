/*
 * test_run.c - run discovery (importers/run.c) on temporary directory
 * trees: the tb_plugin file-name pattern, worker/span grouping and
 * numbering, run naming, traces told apart by content (and what is
 * skipped, with the reason), single files, symlinks (no directory
 * following, loops), limits and the not-found cases; run_discover_in
 * lists the trace links that resolve outside its root as refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <zlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"
#include "importers/run.h"
#include "testutil.h"

static char root[64];

static void mk(const char *rel)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("{\"traceEvents\": []}", f);
	fclose(f);
}

static void mk_text(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mk_gz(const char *rel, const char *text)
{
	char p[512];
	gzFile g;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	g = gzopen(p, "wb");
	assert_non_null(g);
	assert_int_equal(gzputs(g, text), (int)strlen(text));
	gzclose(g);
}

static void mkd(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(mkdir(p, 0777), 0);
}

static void lnk(const char *target, const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state)
{
	(void)state;
	strcpy(root, "/tmp/nns_test_run_XXXXXX");
	if (!mkdtemp(root))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmtree(root);
	return 0;
}

static void match(const char *name, int want, const char *worker, const char *suffix)
{
	char w[256] = "?", s[64] = "?";

	assert_int_equal(run_match_name(name, w, sizeof(w), s, sizeof(s)), want);
	if (want) {
		assert_string_equal(w, worker);
		assert_string_equal(s, suffix);
	}
}

static void test_match_name(void **state)
{
	(void)state;
	match("worker0.1623143089861.pt.trace.json.gz", 1, "worker0", "1623143089861");
	match("worker0.1623143089861.pt.trace.json", 1, "worker0", "1623143089861");
	match("host_1234.pt.trace.json", 1, "host_1234", "");
	match("a.b.12.pt.trace.json", 1, "a.b", "12");
	match("a.12b.pt.trace.json", 1, "a.12b", "");
	/* a worker never ends in '.' nor is empty: no span then */
	match("w..3.pt.trace.json", 1, "w..3", "");
	match(".5.pt.trace.json", 1, ".5", "");
	match("....1074.pt.trace.json", 1, "....1074", "");
	match("x.1074.pt.trace.json.gz", 1, "x", "1074");
	match("5.pt.trace.json", 1, "5", "");
	match(".pt.trace.json", 1, "", "");
	match("x.pt.trace.json.bz2", 0, NULL, NULL);
	match("x.pt.trace.jsonx", 0, NULL, NULL);
	match("trace.json", 0, NULL, NULL);
	match("x.pt.trace.json.gz.tmp", 0, NULL, NULL);
}

static const struct run *find_run(const struct run_set *rs, const char *name)
{
	for (size_t i = 0; i < rs->runs.n; i++)
		if (strcmp(rs->runs.v[i].name, name) == 0)
			return &rs->runs.v[i];
	return NULL;
}

static void test_tree(void **state)
{
	struct run_set rs;
	struct nns_err err;
	const struct run *r;
	const struct run_worker *w;
	char p[512];

	(void)state;
	mkd("runA");
	mk("runA/worker0.1623143566756.pt.trace.json");
	mk("runA/worker0.1623143089861.pt.trace.json.gz");
	mk("runA/worker1.pt.trace.json");
	mk("runA/notes.txt");
	mk_text("runA/plain.json", "{\"lr\": 0.1}"); /* JSON, but no trace: skipped */
	mkd("runA/nested");
	mkd("runA/nested/deep");
	mk("runA/nested/deep/host_99.pt.trace.json");
	mkd("runB");
	mk("runB/a.b.12.pt.trace.json");
	mk("runB/a.b.9.pt.trace.json");
	snprintf(p, sizeof(p), "%s/runA/worker1.pt.trace.json", root);
	lnk(p, "runA/link.pt.trace.json"); /* symlinked file: read */
	lnk("/nonexistent/x", "runA/dangling.pt.trace.json");
	lnk("..", "runA/loop"); /* symlinked dir: not followed */
	lnk("../runB", "runA/alias");
	mkd("empty");

	nns_err_clear(&err);
	assert_int_equal(run_discover(&rs, root, NULL, &err), NNS_OK);
	assert_int_equal(rs.single_file, 0);
	assert_int_equal(rs.runs.n, 3);
	assert_int_equal(rs.files, 7);
	assert_string_equal(rs.runs.v[0].name, "runA");
	assert_string_equal(rs.runs.v[1].name, "runA/nested/deep");
	assert_string_equal(rs.runs.v[2].name, "runB");
	assert_int_equal(rs.skipped.n, 1);
	assert_non_null(strstr(rs.skipped.v[0].path, "runA/plain.json"));
	assert_string_equal(rs.skipped.v[0].reason,
			    "a JSON object without \"traceEvents\": not a trace");

	r = find_run(&rs, "runA");
	assert_int_equal(r->workers.n, 3);
	assert_string_equal(r->workers.v[0].name, "link");
	assert_string_equal(r->workers.v[1].name, "worker0");
	assert_string_equal(r->workers.v[2].name, "worker1");
	w = &r->workers.v[1];
	assert_int_equal(w->spans.n, 2);
	assert_string_equal(w->spans.v[0].name, "1");
	assert_string_equal(w->spans.v[0].suffix, "1623143089861");
	assert_non_null(strstr(w->spans.v[0].path, "worker0.1623143089861.pt.trace.json.gz"));
	assert_string_equal(w->spans.v[1].name, "2");
	assert_string_equal(w->spans.v[1].suffix, "1623143566756");
	assert_ptr_equal(run_find_span(w, "2"), &w->spans.v[1]);
	assert_ptr_equal(run_find_span(w, "1623143089861"), &w->spans.v[0]);
	assert_null(run_find_span(w, "3"));
	w = run_find_worker(r, "worker1");
	assert_non_null(w);
	assert_int_equal(w->spans.n, 1);
	assert_null(w->spans.v[0].name); /* single unsuffixed file: no span */
	assert_null(w->spans.v[0].suffix);
	assert_null(run_find_worker(r, "nope"));

	/* spans sort as strings, as tb_plugin does: "12" < "9" */
	r = find_run(&rs, "runB");
	assert_int_equal(r->workers.n, 1);
	assert_string_equal(r->workers.v[0].name, "a.b");
	assert_string_equal(r->workers.v[0].spans.v[0].suffix, "12");
	assert_string_equal(r->workers.v[0].spans.v[1].suffix, "9");
	run_set_release(&rs);
	assert_int_equal(rs.runs.n, 0);

	/* a run directory given directly is named by its base name */
	snprintf(p, sizeof(p), "%s/runB/", root);
	assert_int_equal(run_discover(&rs, p, NULL, &err), NNS_OK);
	assert_int_equal(rs.runs.n, 1);
	assert_string_equal(rs.runs.v[0].name, "runB");
	run_set_release(&rs);

	/* limits */
	{
		struct run_limits lim = {0, 2, 0};

		assert_int_equal(run_discover(&rs, root, &lim, &err), NNS_ENOMEM);
		assert_non_null(strstr(err.msg, "trace files"));
		assert_int_equal(rs.runs.n, 0);
		lim.max_files = 0;
		lim.max_entries = 5;
		assert_int_equal(run_discover(&rs, root, &lim, &err), NNS_ENOMEM);
		lim.max_entries = 0;
		lim.max_depth = 2; /* root and its children only: nested/deep is skipped */
		assert_int_equal(run_discover(&rs, root, &lim, &err), NNS_OK);
		assert_int_equal(rs.runs.n, 2);
		run_set_release(&rs);
	}

	/* no traces anywhere */
	snprintf(p, sizeof(p), "%s/empty", root);
	assert_int_equal(run_discover(&rs, p, NULL, &err), NNS_ENOTFOUND);
	assert_non_null(strstr(err.msg, "no traces found"));
	snprintf(p, sizeof(p), "%s/missing", root);
	assert_int_equal(run_discover(&rs, p, NULL, &err), NNS_ENOTFOUND);
}

static void test_json_fallback(void **state)
{
	struct run_set rs;
	struct nns_err err;
	const char *b;

	(void)state;
	mk("after_fix_trace.json");
	mk("before.json.gz");
	mk("readme.md");
	mkd("sub");
	mk("sub/other.json"); /* a run of its own */
	assert_int_equal(run_discover(&rs, root, NULL, &err), NNS_OK);
	assert_int_equal(rs.runs.n, 2);
	assert_string_equal(rs.runs.v[1].name, "sub");
	assert_string_equal(rs.runs.v[1].workers.v[0].name, "other");
	b = strrchr(root, '/') + 1;
	assert_string_equal(rs.runs.v[0].name, b);
	assert_int_equal(rs.runs.v[0].workers.n, 2);
	assert_string_equal(rs.runs.v[0].workers.v[0].name, "after_fix_trace");
	assert_string_equal(rs.runs.v[0].workers.v[1].name, "before");
	assert_null(rs.runs.v[0].workers.v[1].spans.v[0].name);
	run_set_release(&rs);
}

/* Hand-named traces anywhere in the tree are found by their content, next
 * to tb_plugin runs; JSON that is not a trace is listed with the reason;
 * hidden directories are left out. */
static void test_content(void **state)
{
	struct run_set rs;
	struct nns_err err;
	const struct run *r;
	const char *ev = "[{\"name\": \"a\", \"ph\": \"X\", \"ts\": 0, \"dur\": 5}]";

	(void)state;
	mkd("tb");
	mk("tb/w0.1.pt.trace.json");
	mkd("modern");
	mk("modern/after_fix_trace.json");
	mkd("modern/.nnscope-cache");
	mk("modern/.nnscope-cache/hidden.json");
	mk_text("modern/config.json", "{\"lr\": 0.1}");
	mk_text("modern/list.json", "[1, 2, 3]");
	mk_text("modern/empty.json", " [ ] ");
	mk_text("modern/objs.json", "[{\"lr\": 1}]");
	mk_text("modern/chrome.json", ev); /* Chrome's array format */
	mk_gz("modern/rank-0.json.gz", "{\"schemaVersion\": 1, \"traceEvents\": []}");
	mk_text("modern/notes.txt", "[1]"); /* not a candidate: not listed */
	mkd("worker");
	mk_gz("worker/control.json.gz", ev);
	mk_text("worker/control.json", ev); /* same stem: both keep their file name */
	mkd("ms");
	mk_text("ms/ascend_timeline_display_0.json", ev);
	mk_text("ms/flops_summary_0.json", "{\"a\": 1}"); /* MindSpore's: not listed */
	mkd("ms/PROF_000001_X");
	mk_text("ms/PROF_000001_X/msprof_0.json", ev); /* its raw data: not walked */
	assert_int_equal(run_discover(&rs, root, NULL, &err), NNS_OK);
	assert_int_equal(rs.runs.n, 4);
	r = find_run(&rs, "ms");
	assert_non_null(r);
	assert_int_equal(r->workers.n, 1);
	assert_string_equal(r->workers.v[0].name, "device_0");
	r = find_run(&rs, "modern");
	assert_non_null(r);
	assert_int_equal(r->workers.n, 3);
	assert_string_equal(r->workers.v[0].name, "after_fix_trace");
	assert_string_equal(r->workers.v[1].name, "chrome");
	assert_string_equal(r->workers.v[2].name, "rank-0");
	assert_null(r->workers.v[2].spans.v[0].name);
	r = find_run(&rs, "worker");
	assert_non_null(r);
	assert_int_equal(r->workers.n, 2);
	assert_string_equal(r->workers.v[0].name, "control.json");
	assert_string_equal(r->workers.v[1].name, "control.json.gz");
	assert_non_null(find_run(&rs, "tb"));
	assert_int_equal(rs.skipped.n, 4);
	for (size_t i = 0; i < rs.skipped.n; i++) {
		const char *p = rs.skipped.v[i].path, *why = rs.skipped.v[i].reason;

		if (strstr(p, "config.json"))
			assert_non_null(strstr(why, "without \"traceEvents\""));
		else if (strstr(p, "list.json"))
			assert_string_equal(why, "a JSON array of non-events: not a trace");
		else if (strstr(p, "empty.json"))
			assert_string_equal(why, "no events: the JSON array is empty");
		else if (strstr(p, "objs.json"))
			assert_non_null(strstr(why, "without \"ph\""));
		else
			fail_msg("unexpected skip %s: %s", p, why);
	}
	run_set_release(&rs);

	/* a folder whose traces are one level down is a folder of runs */
	{
		char p[512];

		snprintf(p, sizeof(p), "%s/modern/.nnscope-cache", root);
		assert_int_equal(run_discover(&rs, p, NULL, &err), NNS_OK);
		run_set_release(&rs);
		mkd("up");
		mkd("up/sub");
		mk_text("up/sub/t.json", ev);
		mk_text("up/bad.json", "[]");
		snprintf(p, sizeof(p), "%s/up", root);
		assert_int_equal(run_discover(&rs, p, NULL, &err), NNS_OK);
		assert_int_equal(rs.runs.n, 1);
		assert_string_equal(rs.runs.v[0].name, "sub");
		assert_int_equal(rs.skipped.n, 1);
		run_set_release(&rs);
		/* nothing but non-traces: not found, and the skips are kept */
		mkd("none");
		mk_text("none/a.json", "[]");
		snprintf(p, sizeof(p), "%s/none", root);
		assert_int_equal(run_discover(&rs, p, NULL, &err), NNS_ENOTFOUND);
		assert_int_equal(rs.runs.n, 0);
		assert_int_equal(rs.skipped.n, 1);
		assert_non_null(strstr(err.msg, "listed above"));
		run_set_release(&rs);
	}
}

static void test_single_file(void **state)
{
	struct run_set rs;
	struct nns_err err;
	char p[512];

	(void)state;
	mkd("r");
	mk("r/host_7.1700000000000.pt.trace.json.gz");
	mk("r/custom.json");
	mk("r/trace.bin");
	snprintf(p, sizeof(p), "%s/r/host_7.1700000000000.pt.trace.json.gz", root);
	assert_int_equal(run_discover(&rs, p, NULL, &err), NNS_OK);
	assert_int_equal(rs.single_file, 1);
	assert_int_equal(rs.runs.n, 1);
	assert_string_equal(rs.runs.v[0].name, "r");
	assert_string_equal(rs.runs.v[0].workers.v[0].name, "host_7");
	assert_string_equal(rs.runs.v[0].workers.v[0].spans.v[0].name, "1");
	assert_string_equal(rs.runs.v[0].workers.v[0].spans.v[0].suffix, "1700000000000");
	assert_string_equal(rs.runs.v[0].workers.v[0].spans.v[0].path, p);
	run_set_release(&rs);

	snprintf(p, sizeof(p), "%s/r/custom.json", root);
	assert_int_equal(run_discover(&rs, p, NULL, &err), NNS_OK);
	assert_string_equal(rs.runs.v[0].workers.v[0].name, "custom");
	assert_null(rs.runs.v[0].workers.v[0].spans.v[0].name);
	run_set_release(&rs);

	/* any file given explicitly is accepted; the importer judges it */
	snprintf(p, sizeof(p), "%s/r/trace.bin", root);
	assert_int_equal(run_discover(&rs, p, NULL, &err), NNS_OK);
	assert_string_equal(rs.runs.v[0].workers.v[0].name, "trace.bin");
	run_set_release(&rs);

	/* a file in the current directory */
	assert_int_equal(chdir(root), 0);
	assert_int_equal(run_discover(&rs, "r/custom.json", NULL, &err), NNS_OK);
	assert_string_equal(rs.runs.v[0].name, "r");
	assert_string_equal(rs.runs.v[0].dir, "r");
	run_set_release(&rs);
	assert_int_equal(chdir("r"), 0);
	assert_int_equal(run_discover(&rs, "custom.json", NULL, &err), NNS_OK);
	assert_string_equal(rs.runs.v[0].name, "r");
	assert_string_equal(rs.runs.v[0].dir, ".");
	run_set_release(&rs);
	assert_int_equal(run_discover(&rs, ".", NULL, &err), NNS_OK);
	assert_string_equal(rs.runs.v[0].name, "r");
	/* custom.json holds traceEvents: a worker too */
	assert_int_equal(rs.runs.v[0].workers.n, 2);
	assert_string_equal(rs.runs.v[0].workers.v[0].name, "custom");
	assert_string_equal(rs.runs.v[0].workers.v[1].name, "host_7");
	run_set_release(&rs);
	assert_int_equal(chdir("/"), 0);
}

static void test_symlink_loop_only(void **state)
{
	struct run_set rs;
	struct nns_err err;

	(void)state;
	/* a tree made only of directory symlinks finds nothing and ends */
	mkd("a");
	lnk("..", "a/up");
	lnk(".", "a/self");
	lnk("../a", "a/again");
	assert_int_equal(run_discover(&rs, root, NULL, &err), NNS_ENOTFOUND);
	assert_int_equal(rs.runs.n, 0);
}

/* run_discover_in: a tree under root/logdir, with links inside and out. */
static void test_beneath(void **state)
{
	struct fs_root fr;
	struct run_set rs;
	struct nns_err err;
	char logdir[128], out[160];
	size_t refused = 0;

	(void)state;
	mkd("logdir");
	mkd("logdir/r");
	mkd("logdir/.store");
	mkd("out");
	mk("logdir/.store/in.json");
	mk("out/secret.pt.trace.json");
	mk_text("out/host_info_0.csv", "tid,pid\n");
	mk("logdir/r/real.pt.trace.json");
	lnk("../.store/in.json", "logdir/r/inside.pt.trace.json");
	snprintf(out, sizeof(out), "%s/out/secret.pt.trace.json", root);
	lnk(out, "logdir/r/abs_out.pt.trace.json");
	lnk("../../out/secret.pt.trace.json", "logdir/r/rel_out.pt.trace.json");
	lnk("../../out/secret.pt.trace.json", "logdir/r/rel_out.nnst");
	lnk("../../out/host_info_0.csv", "logdir/r/host_info_0.csv");
	lnk("/etc/passwd", "logdir/r/passwd.txt"); /* not a trace's name: not listed */
	snprintf(out, sizeof(out), "%s/out", root);
	lnk(out, "logdir/outdir");
	snprintf(logdir, sizeof(logdir), "%s/logdir", root);
	assert_int_equal(fs_root_open(&fr, logdir, &err), NNS_OK);
	assert_int_equal(run_discover_in(&rs, &fr, NULL, &err), NNS_OK);
	assert_int_equal(rs.runs.n, 1);
	assert_string_equal(rs.runs.v[0].name, "r");
	assert_int_equal(rs.runs.v[0].workers.n, 2);
	assert_string_equal(rs.runs.v[0].workers.v[0].name, "inside");
	assert_string_equal(rs.runs.v[0].workers.v[1].name, "real");
	assert_int_equal(rs.runs.v[0].host_info.n, 0); /* the CSV linked out */
	for (size_t i = 0; i < rs.skipped.n; i++) {
		const char *b = strrchr(rs.skipped.v[i].path, '/') + 1;

		assert_string_not_equal(b, "passwd.txt");
		if (strncmp(rs.skipped.v[i].reason, "refused: resolves outside ", 26) == 0) {
			assert_non_null(strstr(rs.skipped.v[i].reason, logdir));
			refused++;
		}
	}
	assert_int_equal(refused, 3); /* abs_out, rel_out .json and .nnst */
	run_set_release(&rs);
	/* the same tree without a root (the CLI) follows every link */
	assert_int_equal(run_discover(&rs, logdir, NULL, &err), NNS_OK);
	assert_int_equal(rs.runs.v[0].workers.n, 4);
	assert_int_equal(rs.runs.v[0].host_info.n, 1);
	run_set_release(&rs);
	fs_root_close(&fr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_match_name),
	    cmocka_unit_test_setup_teardown(test_tree, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_json_fallback, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_single_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_content, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_symlink_loop_only, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_beneath, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
