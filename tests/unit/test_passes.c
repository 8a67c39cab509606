/*
 * test_passes.c - the pass table and cache of src/analysis/profile.c: the
 * table is in topological order (a pass needs only passes above it, so no
 * cycle can be written), an_profile_compute runs exactly the base passes,
 * an_profile_need runs a pass once with its needs, a failed pass answers
 * its first error again (and fails its dependents the same way), and
 * writing every JSON document plus the SQLite export of a profile (what
 * `analyse --sqlite` does) runs each pass once; the critical path's step
 * option; passes run side by side on several threads (an_profile_need_mask)
 * write the same documents as one after the other, and fail the same way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/an_hta.h"
#include "importers/kineto.h"
#include "output/output.h"
#include "output/sqlite_out.h"
#include "testutil.h"
#include "kineto_doc.h"

/* two steps, an operator launching two kernels, a blocking sync */
static const char doc[] =
    HDR STEP(1, 0, 100) "," CPU("aten::mm", 0, 20) "," RT("cudaLaunchKernel", 2, 2, 1) "," RT(
	"cudaLaunchKernel", 6, 2,
	2) "," KERNEL("k1", 7, 5, 40,
		      1) "," KERNEL("k2", 7, 50, 40,
				    2) "," RT("cudaDeviceSynchronize", 30, 65,
					      3) "," STEP(2, 100,
							  50) "," CPU("aten::add", 100,
								      10) "," RT("cudaLaunchKernel",
										 102, 2,
										 4) "," KERNEL("k3",
											       7,
											       105,
											       10,
											       4) "]}";

static void test_table_is_topological(void **state)
{
	int k;
	(void)state;

	for (k = 0; k < AN_PASS__N; k++) {
		assert_non_null(an_passes[k].name);
		assert_non_null(an_passes[k].run);
		/* needs only passes above it: no cycle, top-to-bottom is an order */
		if (an_passes[k].needs & ~((1u << k) - 1))
			fail_msg("pass %s needs a pass at or below it", an_passes[k].name);
		/* the profile proper needs nothing computed on demand */
		if (k < AN_PASS_NBASE && (an_passes[k].needs >> AN_PASS_NBASE))
			fail_msg("base pass %s needs an HTA pass", an_passes[k].name);
		for (int j = 0; j < k; j++)
			assert_string_not_equal(an_passes[j].name, an_passes[k].name);
	}
}

static void test_compute_runs_base_once(void **state)
{
	struct model m;
	struct an_profile p;
	struct nns_err err;
	int k;
	(void)state;

	assert_int_equal(tu_kineto_profile(doc, &m, &p), 0);
	for (k = 0; k < AN_PASS__N; k++)
		assert_int_equal(p.cache.runs[k], k < AN_PASS_NBASE ? 1 : 0);
	assert_null(p.hta);
	/* a need runs the pass once; a second is answered from the cache */
	nns_err_clear(&err);
	assert_int_equal(an_profile_need(&p, AN_PASS_CRITPATH, &err), NNS_OK);
	assert_int_equal(an_profile_need(&p, AN_PASS_CRITPATH, &err), NNS_OK);
	assert_int_equal(p.cache.runs[AN_PASS_CRITPATH], 1);
	assert_int_equal(p.cache.runs[AN_PASS_STEPS], 1);
	assert_non_null(p.hta);
	assert_true(p.hta->critpath.ok);
	assert_string_equal(p.hta->critpath.step, "1");
	assert_int_equal(an_profile_need(&p, AN_PASS__N, &err), NNS_EINVAL);
	an_profile_release(&p);
	model_release(&m);
}

/* needs run first, on a profile no pass has touched */
static void test_need_runs_needs(void **state)
{
	struct model m;
	struct an_profile p;
	struct nns_err err;
	(void)state;

	assert_int_equal(tu_kineto_profile(doc, &m, NULL), 0);
	an_profile_init(&p, &m);
	nns_err_clear(&err);
	assert_int_equal(an_profile_need(&p, AN_PASS_SEQUENCES, &err), NNS_OK);
	assert_int_equal(p.cache.done, (1u << AN_PASS_SEQUENCES) | (1u << AN_PASS_OPTREE));
	assert_int_equal(an_profile_need(&p, AN_PASS_GPU, &err), NNS_OK);
	assert_int_equal(p.cache.runs[AN_PASS_OPTREE], 1);
	assert_int_equal(p.cache.runs[AN_PASS_TENSORCORE], 1);
	assert_int_equal(p.cache.runs[AN_PASS_KERNELS], 0); /* not a need of the GPU view */
	assert_int_equal(p.cache.runs[AN_PASS_STEPS], 1);
	assert_int_equal(p.gpus.n, 1);
	/* the GPU view reads the tensor-core pass's share (k1, k2, k3: none
	 * on tensor cores) */
	assert_true(p.gpus.v[0].tensor_core_ratio == an_tc_device_ratio(&p, p.gpus.v[0].id));
	assert_int_equal(p.tc.kernel_time, 90 * 1000);
	an_profile_release(&p);
	model_release(&m);
}

/* A profile of doc on which the operator tree has run and, as if out of
 * memory, failed. */
static void failed_optree(struct model *m, struct an_profile *p)
{
	assert_int_equal(tu_kineto_profile(doc, m, NULL), 0);
	an_profile_init(p, m);
	p->cache.done = 1u << AN_PASS_OPTREE;
	p->cache.rc[AN_PASS_OPTREE] = NNS_ENOMEM;
	p->cache.msg[AN_PASS_OPTREE] = strdup("optree: out of memory");
}

/* A failed pass fails the same way again, and so does what needs it. */
static void test_failure_is_remembered(void **state)
{
	struct model m;
	struct an_profile p;
	struct nns_err err;
	(void)state;

	failed_optree(&m, &p);
	for (int i = 0; i < 2; i++) {
		nns_err_clear(&err);
		assert_int_equal(an_profile_need(&p, AN_PASS_LAUNCHES, &err), NNS_ENOMEM);
		assert_string_equal(err.msg, "optree: out of memory");
		nns_err_clear(&err);
		assert_int_equal(an_profile_need(&p, AN_PASS_OPS, &err), NNS_ENOMEM);
		assert_string_equal(err.msg, "optree: out of memory");
	}
	assert_int_equal(p.cache.runs[AN_PASS_LAUNCHES], 0);
	assert_int_equal(p.cache.runs[AN_PASS_OPS], 0);
	an_profile_release(&p);
	model_release(&m);
}

static int rm_tree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/* Every document (temporal.json, idle.json ...) and then the SQLite
 * export's temporal and idle tables: each pass runs once. */
static void test_json_and_sqlite_once(void **state)
{
	char dir[] = "/tmp/nns_passes_XXXXXX", db[600];
	struct model m;
	struct an_profile p;
	struct out_source src = {"w", NULL, "w.json", "run"};
	struct out_opts oo = {0, 0};
	struct out_sqlite_item it = {"run", "w", "", "w.json", &p};
	struct nns_err err;
	int k;
	(void)state;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(tu_kineto_profile(doc, &m, &p), 0);
	nns_err_clear(&err);
	if (out_write_profile(dir, &src, &p, &oo, &err))
		fail_msg("%s", err.msg);
	snprintf(db, sizeof(db), "%s/x.db", dir);
	if (out_sqlite_write(db, &it, 1, NULL, NULL, &err))
		fail_msg("%s", err.msg);
	/* and `--critical-path` without a step: the first step's path again */
	if (out_write_critical_path(dir, dir, "w.critical.json", &p, &err))
		fail_msg("%s", err.msg);
	for (k = 0; k < AN_PASS__N; k++)
		if (p.cache.runs[k] != (k == AN_PASS_CRITPATH_STEP ? 0u : 1u))
			fail_msg("pass %s ran %u times", an_passes[k].name, p.cache.runs[k]);
	an_profile_release(&p);
	model_release(&m);
	assert_int_equal(rm_tree(dir), 0);
}

/* `analyse --critical-path 2`: critical_path.json is step 2's, computed
 * once for the document and the overlaid trace; a step the trace lacks
 * leaves the document at the first step and fails the overlay. */
static void test_critpath_step_option(void **state)
{
	char dir[] = "/tmp/nns_passes_XXXXXX";
	struct model m;
	struct an_profile p;
	struct out_source src = {"w", NULL, "w.json", "run"};
	struct out_opts oo = {0, 0};
	struct nns_err err;
	json_t *doc2;
	(void)state;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(tu_kineto_profile(doc, &m, &p), 0);
	p.opts.critpath_step = "2";
	nns_err_clear(&err);
	if (out_write_profile(dir, &src, &p, &oo, &err) ||
	    out_write_critical_path(dir, dir, "w.critical.json", &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(p.cache.runs[AN_PASS_CRITPATH_STEP], 1);
	assert_int_equal(p.cache.runs[AN_PASS_CRITPATH], 0);
	doc2 = tu_view_json(out_json_critical_path, &p);
	assert_non_null(doc2);
	assert_string_equal(json_string_value(json_object_get(doc2, "step")), "2");
	json_decref(doc2);
	an_profile_release(&p);

	assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
	p.opts.critpath_step = "ProfilerStep#9";
	doc2 = tu_view_json(out_json_critical_path, &p);
	assert_non_null(doc2);
	assert_string_equal(json_string_value(json_object_get(doc2, "step")), "1");
	json_decref(doc2);
	assert_int_equal(out_write_critical_path(dir, dir, "w.critical.json", &p, &err),
			 NNS_EINVAL);
	an_profile_release(&p);
	model_release(&m);
	assert_int_equal(rm_tree(dir), 0);
}

/* Writes every document of p into a fresh directory (dir, 64 bytes). */
static void write_docs(const struct an_profile *p, char *dir)
{
	struct out_source src = {"w", NULL, "w.json", "run"};
	struct out_opts oo = {1, 0};
	struct nns_err err;

	snprintf(dir, 64, "/tmp/nns_passes_XXXXXX");
	assert_non_null(mkdtemp(dir));
	nns_err_clear(&err);
	if (out_write_profile(dir, &src, p, &oo, &err))
		fail_msg("%s", err.msg);
}

/* The same documents, byte for byte, whether the passes ran one after the
 * other (an_profile_compute, then each writer's need) or side by side on
 * four threads (an_profile_compute_mask), each pass once; on the small
 * trace above and on the real ResNet-50 sample when ../shared has it. */
static void side_by_side(const struct model *m)
{
	struct an_profile a, b;
	struct nns_err err;
	char da[64], db[64], cmd[300];
	int k;

	nns_err_clear(&err);
	assert_int_equal(an_profile_compute(&a, m, &err), NNS_OK);
	write_docs(&a, da);
	assert_int_equal(an_profile_compute_mask(&b, m, AN_PASSES_DOCS, 4, &err), NNS_OK);
	for (k = 0; k < AN_PASS__N; k++)
		if (b.cache.runs[k] != (k == AN_PASS_CRITPATH_STEP ? 0u : 1u))
			fail_msg("pass %s ran %u times", an_passes[k].name, b.cache.runs[k]);
	assert_int_equal(b.cache.running, 0);
	write_docs(&b, db);
	for (k = 0; k < AN_PASS__N; k++) /* the writers found every pass done */
		assert_true(b.cache.runs[k] <= 1);
	snprintf(cmd, sizeof(cmd), "diff -r '%s' '%s'", da, db);
	assert_int_equal(system(cmd), 0);
	an_profile_release(&a);
	an_profile_release(&b);
	assert_int_equal(rm_tree(da), 0);
	assert_int_equal(rm_tree(db), 0);
}

static void test_side_by_side(void **state)
{
	const char *shared = tu_shared_dir();
	char path[512];
	struct model m;
	struct kineto_opts ko = {.threads = 2};
	struct nns_err err;
	(void)state;

	assert_int_equal(tu_kineto_profile(doc, &m, NULL), 0);
	side_by_side(&m);
	model_release(&m);
	if (!shared) {
		printf("   (skipped the ResNet-50 sample: ../shared not found)\n");
		return;
	}
	snprintf(path, sizeof(path),
		 "%s/data/kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
		 shared);
	if (access(path, R_OK) != 0) {
		printf("   (skipped the ResNet-50 sample: %s not found)\n", path);
		return;
	}
	assert_int_equal(model_init(&m), NNS_OK);
	nns_err_clear(&err);
	if (kineto_load_file(path, &m, &ko, &err))
		fail_msg("%s", err.msg);
	side_by_side(&m);
	model_release(&m);
}

/* Side by side, a failed pass still fails what needs it, with its message,
 * and the passes that do not need it run. */
static void test_side_by_side_failure(void **state)
{
	struct model m;
	struct an_profile p;
	struct nns_err err;
	(void)state;

	failed_optree(&m, &p);
	nns_err_clear(&err);
	assert_int_equal(an_profile_need_mask(&p, AN_PASSES_DOCS, 3, &err), NNS_ENOMEM);
	assert_string_equal(err.msg, "optree: out of memory");
	assert_int_equal(p.cache.rc[AN_PASS_OPS], NNS_ENOMEM);
	assert_int_equal(p.cache.runs[AN_PASS_OPS], 0);
	assert_int_equal(p.cache.rc[AN_PASS_SEQUENCES], NNS_ENOMEM);
	assert_int_equal(p.cache.rc[AN_PASS_STEPS], NNS_OK);
	assert_int_equal(p.cache.runs[AN_PASS_STEPS], 1);
	assert_int_equal(p.cache.rc[AN_PASS_BREAKDOWN], NNS_OK);
	assert_int_equal(p.cache.runs[AN_PASS_TEMPORAL], 1);
	assert_int_equal(p.cache.done, AN_PASSES_DOCS);
	an_profile_release(&p);
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table_is_topological),
	    cmocka_unit_test(test_compute_runs_base_once),
	    cmocka_unit_test(test_need_runs_needs),
	    cmocka_unit_test(test_failure_is_remembered),
	    cmocka_unit_test(test_json_and_sqlite_once),
	    cmocka_unit_test(test_critpath_step_option),
	    cmocka_unit_test(test_side_by_side),
	    cmocka_unit_test(test_side_by_side_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
