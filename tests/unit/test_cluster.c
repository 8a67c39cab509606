/*
 * test_cluster.c - the cluster analysis (src/analysis/cluster*.c) and the
 * MindSpore cluster job reader (src/importers/ms_cluster*.c):
 *   - MindInsight's conformance values (../shared/conformance/mindinsight,
 *     tests that really ran upstream): test_parallel_proposer.py on
 *     cluster_propose (step intervals, FLOPs, FLOPS, the eight link rows,
 *     between/within-stage rates, the full proposal) and
 *     test_cluster_analyser.py (step 1 rows of run_2/3/4, data, model and
 *     pipeline parallel), expected values read from expected_values.json;
 *   - hand-computed proposer cases on nnscope-style ranks (slow rank and its
 *     excess, a rank just under the threshold, FP+BP, rank numbering, host,
 *     clock alignment) and on links (one proposal per link type);
 *   - the old layout (cluster_profiler/<N>/profiler/, host = N);
 *   - damaged inputs: a bad step trace in a job keeps the other ranks and
 *     names the file; parsers refuse garbage.
 * Cases that need ../shared skip with a message when it is absent.
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
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/cluster.h"
#include "importers/ms_cluster.h"
#include "output/output.h"
#include "testutil.h"

#define EXPECTED "conformance/mindinsight/expected_values.json"

/* The "value" of the entry (function, name) of one upstream test file. */
static json_t *expected(json_t *root, const char *file, const char *fn, const char *name)
{
	json_t *ents = json_object_get(json_object_get(root, file), "entries"), *e;
	size_t i;

	json_array_foreach(ents, i, e)
	{
		const char *f = json_string_value(json_object_get(e, "function"));
		const char *n = json_string_value(json_object_get(e, "name"));

		if (f && n && !strcmp(f, fn) && !strcmp(n, name))
			return json_object_get(e, "value");
	}
	return NULL;
}

/* Loads a job under ../shared/data/mindinsight; 0 if absent (skip). */
static int load_job(const char *rel, struct msc_job *j, struct cl_result *c)
{
	char path[1024];
	struct nns_err err;
	struct stat st;

	snprintf(path, sizeof(path), "%s/data/mindinsight/%s", tu_shared_dir(), rel);
	if (stat(path, &st) != 0) {
		printf("SKIP: %s absent; set NNS_SHARED to the shared folder\n", path);
		return 0;
	}
	assert_true(msc_is_cluster(path));
	assert_int_equal(msc_load(j, path, 2, &err), NNS_OK);
	cl_init(c);
	assert_int_equal(cl_from_ms(c, j, &err), NNS_OK);
	return 1;
}

static void assert_near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol)) {
		print_error("got %.10f, want %.10f (tolerance %g)\n", got, want, tol);
		fail();
	}
}

/* test_parallel_proposer.py on cluster_propose (4 ranks, 2 stages). */
static void test_parallel_proposer(void **state)
{
	json_t *root = tu_load_shared_json(EXPECTED), *v, *x;
	const char *F = "st/func/profiler/test_parallel_proposer.py";
	const struct cl_proposal *p;
	struct msc_job j;
	struct cl_result c;
	size_t i;

	(void)state;
	if (!root)
		return;
	if (!load_job("cluster_propose", &j, &c)) {
		json_decref(root);
		return;
	}
	assert_int_equal(j.problems, 0);
	assert_string_equal(c.mode, "pipeline-parallel");
	assert_int_equal(c.stage_num, 2);
	assert_int_equal(c.rank_size, 4);
	assert_int_equal(c.ranks.n, 4);

	/* step intervals (ms, 4 places) */
	v = expected(root, F, "test_get_step_interval", "expect_result");
	assert_non_null(v);
	assert_int_equal(json_array_size(v), 4);
	json_array_foreach(v, i, x)
	{
		const struct cl_rank *r =
		    cl_find_rank(&c, (int)json_integer_value(json_object_get(x, "rank_id")));

		assert_non_null(r);
		assert_near(cl_round(cl_ms(r->interval_us), 4),
			    json_real_value(json_object_get(x, "step_interval")), 1e-9);
	}
	/* FLOPs and FLOPS */
	v = expected(root, F, "test_get_rank_flops", "expect_result");
	assert_non_null(v);
	json_array_foreach(v, i, x)
	{
		const struct cl_rank *r =
		    cl_find_rank(&c, (int)json_integer_value(json_object_get(x, "rank_id")));

		assert_non_null(r);
		assert_true(r->has_flops);
		assert_near(r->flops, json_real_value(json_object_get(x, "FLOPs")), 1e-9);
	}
	v = expected(root, F, "test_get_rank_flops_per_second", "expect_result");
	assert_non_null(v);
	json_array_foreach(v, i, x)
	{
		const struct cl_rank *r =
		    cl_find_rank(&c, (int)json_integer_value(json_object_get(x, "rank_id")));

		assert_non_null(r);
		assert_near(r->flops_per_s, json_real_value(json_object_get(x, "FLOPS")), 1e-9);
	}
	/* the eight link rows: [src-dst, type, cost ms, size KB, bandwidth KB/s] */
	v = expected(root, F, "test_get_rank_link_summary", "expect_result");
	assert_non_null(v);
	assert_int_equal(c.links.n, json_array_size(v));
	json_array_foreach(v, i, x)
	{
		const struct cl_link *l = &c.links.v[i];
		char sd[32];

		snprintf(sd, sizeof(sd), "%d-%d", l->src, l->dst);
		assert_string_equal(sd, json_string_value(json_array_get(x, 0)));
		assert_string_equal(l->type, json_string_value(json_array_get(x, 1)));
		assert_near(l->time_us / 1000.0, json_real_value(json_array_get(x, 2)), 1e-9);
		assert_near(l->size_kb, json_real_value(json_array_get(x, 3)), 1e-6);
		assert_near(l->bw_kbps, json_real_value(json_array_get(x, 4)), 1e-3);
	}
	/* communication rates */
	v = expected(root, F, "test_get_between_stage_communication_rate", "expect_result");
	assert_non_null(v);
	assert_near(c.between_stage_rate, json_real_value(v), 1e-12);
	v = expected(root, F, "test_get_within_stage_communication_rate", "expect_result");
	assert_non_null(v);
	assert_int_equal(c.stages.n, json_array_size(v));
	json_array_foreach(v, i, x)
	{
		assert_int_equal(c.stages.v[i].stage,
				 json_integer_value(json_object_get(x, "stage_id")));
		assert_near(c.stages.v[i].within_comm_rate,
			    json_real_value(json_object_get(x, "rate")), 1e-9);
	}

	/* the whole proposal: step_interval, cluster_link, three pipeline items */
	v = expected(root, F, "<module>", "PARALLEL_PROPOSE_RESULT");
	assert_non_null(v);
	x = json_object_get(v, "step_interval");
	assert_non_null(p = cl_find_proposal(&c, "slow_rank"));
	assert_int_equal(p->rank, json_integer_value(json_object_get(x, "rank_id")));
	assert_near(p->val, json_real_value(json_object_get(x, "val")), 1e-9);
	assert_near(p->percent, json_real_value(json_object_get(x, "percent")), 1e-9);
	x = json_array_get(json_object_get(v, "cluster_link"), 0);
	assert_int_equal(json_array_size(json_object_get(v, "cluster_link")), 1);
	assert_non_null(p = cl_find_proposal(&c, "slow_link"));
	assert_int_equal(p->src, json_integer_value(json_object_get(x, "src_rank")));
	assert_int_equal(p->dst, json_integer_value(json_object_get(x, "des_rank")));
	assert_string_equal(p->link_type, json_string_value(json_object_get(x, "link_type")));
	assert_near(p->val, json_real_value(json_object_get(x, "val")), 1e-9);
	assert_near(p->percent, json_real_value(json_object_get(x, "percent")), 1e-9);
	x = json_object_get(json_object_get(v, "parallel_strategy"),
			    "pipeline_parallel_between_stage");
	assert_non_null(p = cl_find_proposal(&c, "pipeline_between_stage"));
	assert_near(p->val, json_real_value(json_object_get(x, "val")), 1e-9);
	assert_near(p->threshold, json_real_value(json_object_get(x, "threshold")), 1e-9);
	x = json_object_get(json_object_get(v, "parallel_strategy"),
			    "pipeline_parallel_within_stage");
	assert_non_null(p = cl_find_proposal(&c, "pipeline_within_stage"));
	assert_near(p->val, json_real_value(json_object_get(x, "val")), 1e-9);
	assert_near(p->threshold, json_real_value(json_object_get(x, "threshold")), 1e-9);
	assert_int_equal(p->stage, json_integer_value(json_object_get(x, "stage")));
	x = json_object_get(json_object_get(v, "parallel_strategy"), "pipeline_parallel_flops");
	assert_non_null(p = cl_find_proposal(&c, "pipeline_flops"));
	assert_int_equal(p->stage, json_integer_value(json_object_get(x, "stage")));
	assert_near(p->val, json_real_value(json_object_get(x, "val")), 1e-9);
	assert_near(p->percent, json_real_value(json_object_get(x, "percent")), 1e-9);
	/* nothing else: no FLOPS rank (5.3 % < 20 %), no data/model-parallel rate */
	assert_int_equal(c.proposals.n, 5);
	assert_null(cl_find_proposal(&c, "slow_rank_flops"));
	cl_release(&c);
	msc_release(&j);
	json_decref(root);
}

/* test_cluster_analyser.py: step 1 of rank 1 in run_2/3/4. */
static void one_cluster_row(json_t *root, const char *fn, const char *job, const char *mode,
			    int bottleneck)
{
	json_t *v =
	    expected(root, "st/func/profiler/test_cluster_analyser.py", fn, "expect_result");
	json_t *info, *row;
	const struct cl_rank *r;
	struct msc_job j;
	struct cl_result c;

	assert_non_null(v);
	if (!load_job(job, &j, &c))
		return;
	assert_string_equal(c.mode, json_string_value(json_object_get(v, "parallel-mode")));
	assert_string_equal(c.mode, mode);
	assert_int_equal(c.stage_num, json_integer_value(json_object_get(v, "stage_num")));
	assert_int_equal(json_integer_value(json_object_get(v, "size")), (json_int_t)c.ranks.n);
	info = json_array_get(json_object_get(v, "info"), 0);
	assert_non_null(
	    r = cl_find_rank(&c, (int)json_integer_value(json_object_get(info, "rank_id"))));
	assert_true(r->steps.n >= 1);
	if (!bottleneck) {
		/* [iteration_interval, fp_and_bp, tail, total] ms, 4 places */
		const struct cl_step *s = &r->steps.v[0];

		row = json_object_get(info, "step_trace_info");
		assert_int_equal(json_array_size(row), 4);
		assert_near(cl_round(cl_ms(s->interval_us), 4),
			    json_real_value(json_array_get(row, 0)), 1e-9);
		assert_near(cl_round(cl_ms(s->fp_bp_us), 4),
			    json_real_value(json_array_get(row, 1)), 1e-9);
		assert_near(cl_round(cl_ms(s->tail_us), 4), json_real_value(json_array_get(row, 2)),
			    1e-9);
		assert_near(cl_round(cl_ms(s->total_us), 4),
			    json_real_value(json_array_get(row, 3)), 1e-9);
	} else {
		/* [iteration_interval] + the cluster csv row of step 1, ms */
		const struct cl_step *s = &r->steps.v[0];

		row = json_object_get(info, "step_bottleneck_info");
		assert_near(cl_round(cl_ms(s->interval_us), 4),
			    json_real_value(json_array_get(row, 0)), 1e-9);
		assert_true(s->has_bottleneck || r->has_bottleneck);
		for (size_t k = 1; k < json_array_size(row); k++) {
			double got =
			    s->has_bottleneck ? s->bottleneck[k - 1] : r->bottleneck[k - 1];

			assert_near(cl_round(got / 1000, 4),
				    json_real_value(json_array_get(row, k)), 1e-9);
		}
		assert_int_equal(r->bottleneck_cols, (int)json_array_size(row) - 1);
	}
	cl_release(&c);
	msc_release(&j);
}

static void test_cluster_step_trace(void **state)
{
	json_t *root = tu_load_shared_json(EXPECTED);

	(void)state;
	if (!root)
		return;
	one_cluster_row(root, "test_query_cluster_step_trace", "run_2/normal_run", "data-parallel",
			0);
	one_cluster_row(root, "test_query_cluster_model_parallel", "run_3/normal_run",
			"model-parallel", 1);
	one_cluster_row(root, "test_query_cluster_pipeline_parallel", "run_4/normal_run",
			"pipeline-parallel", 1);
	json_decref(root);
}

/* ---- hand-computed cases on nnscope ranks ---------------------------------- */

struct fake {
	struct model m;
	struct an_profile p;
};

/* One worker with steps of the given interval and fp+bp (us), 1 ms tail. */
static void fake_rank(struct fake *f, const char *rank, const char *host, double interval_us,
		      double fp_bp_us, int steps)
{
	int64_t t = 1000000000;

	memset(f, 0, sizeof(*f));
	assert_int_equal(model_init(&f->m), NNS_OK);
	if (rank)
		assert_int_equal(model_add_meta(&f->m, "rank", rank), NNS_OK);
	if (host)
		assert_int_equal(model_add_meta(&f->m, "host", host), NNS_OK);
	f->m.mono_offset_ns = 5;
	f->p.m = &f->m;
	for (int i = 0; i < steps; i++) {
		struct an_steptrace_row r;

		memset(&r, 0, sizeof(r));
		snprintf(r.name, sizeof(r.name), "%d", i + 1);
		r.iteration_interval = (int64_t)(interval_us * 1000);
		r.fp_bp = (int64_t)(fp_bp_us * 1000);
		r.tail = 1000000;
		r.start = t;
		r.end = t + r.iteration_interval + r.fp_bp + r.tail;
		t = r.end;
		assert_int_equal(vec_push(&f->p.steptrace.steps, r), 0);
	}
	f->p.steptrace.avg_interval = interval_us * 1000;
	f->p.steptrace.avg_fp_bp = fp_bp_us * 1000;
	f->p.steptrace.avg_tail = 1000000;
	f->p.steptrace.avg_total = (interval_us + fp_bp_us + 1000) * 1000;
}

static void fake_free(struct fake *f)
{
	vec_free(&f->p.steptrace.steps);
	model_release(&f->m);
}

static void run_fakes(struct cl_result *c, const double *interval, const double *fp_bp,
		      const char *const *ranks, size_t n)
{
	struct fake f[8];
	struct nns_err err;
	char w[32];

	cl_init(c);
	for (size_t i = 0; i < n; i++) {
		fake_rank(&f[i], ranks ? ranks[i] : NULL, i < 2 ? "hostA" : "hostB", interval[i],
			  fp_bp[i], 3);
		snprintf(w, sizeof(w), "w%zu", i);
		assert_int_equal(cl_add_profile(c, w, &f[i].p, &err), NNS_OK);
	}
	assert_int_equal(cl_finish(c, &err), NNS_OK);
	for (size_t i = 0; i < n; i++)
		fake_free(&f[i]);
}

static void test_slow_rank_hand(void **state)
{
	/* intervals 10, 10, 10, 15 ms: mean 11.25, 15 / 11.25 - 1 = 33.33 %;
	 * excess over the other ranks' mean = 5 ms */
	const double iv[] = {10000, 10000, 15000, 10000}, fb[] = {50000, 50000, 50000, 50000};
	const char *const ranks[] = {"3", "1", "2", "0"};
	const struct cl_proposal *p;
	const struct cl_rank *r;
	struct cl_result c;

	(void)state;
	run_fakes(&c, iv, fb, ranks, 4);
	assert_string_equal(c.source, "nnscope");
	assert_int_equal(c.ranks.n, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(c.ranks.v[i].rank, i); /* sorted by rank metadata */
	/* worker w2 had rank "2" and the slow interval */
	assert_non_null(r = cl_find_rank(&c, 2));
	assert_string_equal(r->worker, "w2");
	assert_string_equal(r->host, "hostB");
	assert_near(r->interval_us, 15000, 1e-9);
	assert_near(r->total_us, 15000 + 50000 + 1000, 1e-9);
	assert_int_equal(r->steps.n, 3);
	assert_true(c.clock_aligned);
	/* two hosts without NTP state: the misalignment bound is unknown */
	assert_true(isnan(c.clock_error_us));
	/* the first step of w0 (rank 3) starts at t0: 0 us; its 2nd at 61 ms */
	assert_near(cl_find_rank(&c, 3)->steps.v[1].start_us, 61000, 1e-6);
	assert_non_null(p = cl_find_proposal(&c, "slow_rank"));
	assert_int_equal(p->rank, 2);
	assert_near(p->val, 15.0, 1e-12);
	assert_near(p->percent, 33.33, 1e-12);
	assert_near(p->threshold, 20, 1e-12);
	assert_near(p->excess_us, 5000, 1e-6);
	assert_near(p->mean_us, 11250, 1e-6);
	assert_non_null(strstr(p->text, "device 2"));
	assert_non_null(strstr(p->text, "hostB"));
	assert_null(cl_find_proposal(&c, "slow_rank_fp_bp"));
	assert_int_equal(cl_sort_ranks(&c, "iteration_interval", 1), NNS_OK);
	assert_int_equal(c.ranks.v[0].rank, 2);
	assert_int_equal(c.ranks.v[1].rank, 0); /* ties by rank */
	assert_int_equal(cl_sort_ranks(&c, "nope", 0), NNS_EINVAL);
	cl_release(&c);
}

static void test_under_threshold_and_fp_bp(void **state)
{
	/* intervals 10, 10, 10, 12 ms: mean 10.5, 12 / 10.5 - 1 = 14.3 % < 20 %;
	 * fp+bp 40, 40, 40, 70 ms: mean 47.5, 70 / 47.5 - 1 = 47.37 % */
	const double iv[] = {10000, 10000, 10000, 12000}, fb[] = {40000, 40000, 40000, 70000};
	const struct cl_proposal *p;
	struct cl_result c;

	(void)state;
	run_fakes(&c, iv, fb, NULL, 4); /* no rank metadata: ranks in order 0..3 */
	for (int i = 0; i < 4; i++) {
		char w[16];

		snprintf(w, sizeof(w), "w%d", i);
		assert_string_equal(c.ranks.v[i].worker, w);
		assert_int_equal(c.ranks.v[i].rank, i);
	}
	assert_null(cl_find_proposal(&c, "slow_rank"));
	assert_non_null(p = cl_find_proposal(&c, "slow_rank_fp_bp"));
	assert_int_equal(p->rank, 3);
	assert_near(p->percent, 47.37, 1e-12);
	assert_near(p->excess_us, 30000, 1e-6);
	cl_release(&c);
}

static void test_links_hand(void **state)
{
	/* SDMA (non-self) 100, 100, 50: mean 83.33, (83.33 - 50) / 83.33 = 40 %;
	 * the self link 0-0 (10) is left out; RDMA 10, 9: 5.3 % below, no */
	static const struct {
		int rep, src, dst;
		const char *type;
		double bw;
	} L[] = {{0, 0, 1, "SDMA", 100}, {0, 0, 0, "SDMA", 10}, {1, 1, 0, "SDMA", 100},
		 {1, 1, 2, "SDMA", 50},	 {0, 0, 1, "RDMA", 10}, {1, 1, 0, "RDMA", 9}};
	const struct cl_proposal *p;
	struct cl_result c;
	struct nns_err err;

	(void)state;
	cl_init(&c);
	snprintf(c.source, sizeof(c.source), "mindspore");
	snprintf(c.mode, sizeof(c.mode), "data-parallel");
	for (size_t i = 0; i < sizeof(L) / sizeof(L[0]); i++) {
		struct cl_link l;

		memset(&l, 0, sizeof(l));
		l.reporter = L[i].rep;
		l.src = L[i].src;
		l.dst = L[i].dst;
		snprintf(l.type, sizeof(l.type), "%s", L[i].type);
		l.bw_kbps = L[i].bw;
		assert_int_equal(vec_push(&c.links, l), 0);
	}
	assert_int_equal(cl_finish(&c, &err), NNS_OK);
	assert_int_equal(c.proposals.n, 1);
	assert_non_null(p = cl_find_proposal(&c, "slow_link"));
	assert_string_equal(p->link_type, "SDMA");
	assert_int_equal(p->src, 1);
	assert_int_equal(p->dst, 2);
	assert_int_equal(p->reporter, 1);
	assert_near(p->percent, 40.0, 1e-12);
	assert_near(p->val, 50, 1e-12);
	cl_release(&c);
}

/* ---- damaged inputs ------------------------------------------------------- */

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static void test_damaged_job(void **state)
{
	static const char hdr[] = "step_num,start_point,end_point,total,fp_point,bp_point,"
				  "iteration_interval,fp_and_bp,tail\n";
	char dir[] = "/tmp/nns-cluster-XXXXXX", text[1024], path[1100];
	struct msc_job j;
	struct cl_result c;
	struct nns_err err;
	struct msc_rank r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(text, sizeof(text),
		 "%s1,0,300000,300000,100000,250000,100000,150000,50000\n"
		 "-,0,0,300000,0,0,100000,150000,50000\n",
		 hdr);
	write_file(dir, "step_trace_raw_0_detail_time.csv", text);
	write_file(dir, "step_trace_raw_1_detail_time.csv", "step_num,start\n1,2\n");
	write_file(dir, "step_trace_raw_2_detail_time.csv", text);
	write_file(dir, "hccl_raw_2.csv",
		   "step_num,communication_cost,wait_cost,link_info\n"
		   "-,1,2,\"{\"\"0-1\"\": {\"\"SDMA\"\": [1, 2]}}\"\n");
	assert_true(msc_is_cluster(dir));
	assert_int_equal(msc_load(&j, dir, 0, &err), NNS_OK);
	assert_int_equal(j.ranks.n, 3);
	assert_int_equal(j.problems, 2);
	assert_non_null(strstr(j.note, "step_trace_raw_1_detail_time.csv"));
	assert_false(j.ranks.v[1].has_st);
	assert_true(j.ranks.v[0].has_st);
	assert_false(j.ranks.v[2].has_hccl); /* link without a bandwidth */
	assert_non_null(strstr(j.ranks.v[2].problem, "hccl_raw_2.csv"));
	cl_init(&c);
	assert_int_equal(cl_from_ms(&c, &j, &err), NNS_OK);
	/* rank 0: 1000 us interval, 1500 fp+bp, 500 tail, 3000 total */
	assert_near(c.ranks.v[0].interval_us, 1000, 1e-9);
	assert_near(c.ranks.v[0].fp_bp_us, 1500, 1e-9);
	assert_near(c.ranks.v[0].total_us, 3000, 1e-9);
	assert_false(c.analyse_steps); /* rank 1 has none: no slow_rank verdict */
	assert_null(cl_find_proposal(&c, "slow_rank"));
	cl_release(&c);
	msc_release(&j);

	/* parsers on garbage */
	memset(&r, 0, sizeof(r));
	assert_int_equal(msc_parse_step_trace(&r, hdr, strlen(hdr), &err), NNS_EFORMAT);
	assert_int_equal(msc_parse_flops(&r, "{\"FLOPs\": ", 10, &err), NNS_EFORMAT);
	assert_int_equal(msc_parse_hccl(&r, "a,b\n1,\"x", 9, &err), NNS_EFORMAT);
	assert_int_equal(msc_parse_cluster_csv(&r, "a,b\n1,zz\n", 9, &err), NNS_EFORMAT);
	vec_free(&r.st);
	vec_free(&r.cl);
	vec_free(&r.links);
	vec_free(&r.ops);
	assert_false(msc_is_cluster("/nonexistent/nnscope"));

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

/* The old layout: hccl.json + host_ips_mapping.txt + cluster_profiler/<N>/profiler/;
 * the rank's host is the mapped id N. */
static void test_old_layout(void **state)
{
	static const char st[] = "step_num,start_point,end_point,total,fp_point,bp_point,"
				 "iteration_interval,fp_and_bp,tail\n"
				 "1,0,100,100,0,0,10,80,10\n-,0,0,100,0,0,%d,80,10\n";
	char dir[] = "/tmp/nns-cluster-old-XXXXXX", sub[256], text[512], cmd[300];
	struct msc_job j;
	struct cl_result c;
	struct nns_err err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	write_file(dir, "hccl.json", "{\"server_list\": []}");
	write_file(dir, "host_ips_mapping.txt", "10.0.0.1 1\n10.0.0.2 2\n");
	for (int h = 1; h <= 2; h++) {
		snprintf(sub, sizeof(sub), "%s/cluster_profiler/%d/profiler", dir, h);
		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", sub);
		assert_int_equal(system(cmd), 0);
		for (int r = (h - 1) * 2; r < h * 2; r++) {
			char name[64];

			/* rank 3 waits 50 (0.5 us) instead of 10 */
			snprintf(text, sizeof(text), st, r == 3 ? 50 : 10);
			snprintf(name, sizeof(name), "step_trace_raw_%d_detail_time.csv", r);
			write_file(sub, name, text);
		}
	}
	assert_true(msc_is_cluster(dir));
	assert_true(msc_dir_is_job(dir));
	assert_int_equal(msc_load(&j, dir, 3, &err), NNS_OK);
	assert_true(j.old_layout);
	assert_int_equal(j.ranks.n, 4);
	assert_int_equal(j.problems, 0);
	cl_init(&c);
	assert_int_equal(cl_from_ms(&c, &j, &err), NNS_OK);
	for (int r = 0; r < 4; r++) {
		char host[16];

		snprintf(host, sizeof(host), "%d", r / 2 + 1);
		assert_int_equal(c.ranks.v[r].rank, r);
		assert_string_equal(c.ranks.v[r].host, host);
	}
	/* intervals 0.1, 0.1, 0.1, 0.5 us -> ms 0.0001 x3, 0.0005: mean 0.0002,
	 * rank 3 at +150 % */
	assert_non_null(cl_find_proposal(&c, "slow_rank"));
	assert_int_equal(cl_find_proposal(&c, "slow_rank")->rank, 3);
	assert_near(cl_find_proposal(&c, "slow_rank")->percent, 150.0, 1e-9);
	cl_release(&c);
	msc_release(&j);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parallel_proposer),
	    cmocka_unit_test(test_cluster_step_trace),
	    cmocka_unit_test(test_slow_rank_hand),
	    cmocka_unit_test(test_under_threshold_and_fp_bp),
	    cmocka_unit_test(test_links_hand),
	    cmocka_unit_test(test_damaged_job),
	    cmocka_unit_test(test_old_layout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
