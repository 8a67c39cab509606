/*
 * test_distributed.c - unit tests of the communication nodes (comm.c) and
 * the distributed view (distributed.c): input byte sizes, kernel
 * attribution (external id and, PyTorch 2.x style, launch ownership),
 * overlap and synchronizing/transfer bars, the comm op table, degraded
 * matching when workers differ, and tb_plugin's test_distributed_nccl
 * conformance case (10_distributed_nccl.json).
 */
#include "analysis/analysis.h"
#include "analysis/comm_bytes.h"
#include "testutil.h"
#include "mbuild.h"

#include <math.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

static void compute(struct an_profile *p, struct model *m, int finalize)
{
	static const mb_pass passes[] = {an_steps_compute, an_breakdown_compute, an_optree_compute,
					 an_comm_compute, NULL};
	mb_compute(p, m, finalize, passes);
}

static const struct an_dist_comm_row *crow(const struct an_dist *d, uint32_t w, const char *name)
{
	size_t i;
	for (i = 0; i < d->comm_ops.n; i++)
		if (d->comm_ops.v[i].worker == w && strcmp(d->comm_ops.v[i].name, name) == 0)
			return &d->comm_ops.v[i];
	return NULL;
}

/* ---- bytes -------------------------------------------------------------------- */

static void test_comm_bytes(void **state)
{
	(void)state;
	assert_int_equal(an_comm_bytes("[[53120]]", "['float']"), 212480);
	assert_int_equal(an_comm_bytes("[[7], [3], [5]]", "['signed char', 'short int', 'bool']"),
			 7 + 6 + 5);
	assert_int_equal(an_comm_bytes("[[1000], [1000], []]", "['float', 'float', 'Int']"), 8000);
	assert_int_equal(an_comm_bytes("[[2, 8, 5], []]", "['c10::Half', 'long int']"), 168);
	assert_int_equal(an_comm_bytes("[[4], [4], [4], [4]]",
				       "['c10::BFloat16', 'unsigned char', 'double', 'int']"),
			 8 + 4 + 32 + 16);
	assert_int_equal(an_comm_bytes("[[[2, 3], [4]]]", "['float']"), 40); /* tensor list */
	assert_int_equal(an_comm_bytes("[[[2, 3], [4]]]", "['TensorList']"), 0);
	assert_int_equal(an_comm_bytes("[[3], [5]]", "['float']"), 12); /* missing type */
	assert_int_equal(an_comm_bytes("[[3], [5]]", "[\"float\", \"double\"]"), 52);
	assert_int_equal(an_comm_bytes("[[2], [3, x", "['float', 'float']"), 8); /* malformed */
	assert_int_equal(an_comm_bytes("[]", "[]"), 0);
	assert_int_equal(an_comm_bytes("", ""), 0);
	assert_int_equal(an_comm_bytes("[[9223372036854775807, 4]]", "['double']"), INT64_MAX);
	assert_int_equal(
	    an_comm_bytes("[[], 7, None, [2]]", "['float', 'float', 'float', 'float']"), 4 + 8);
}

/* ---- comm nodes ------------------------------------------------------------------ */

/* PyTorch 2.x: an NCCL kernel whose external id is its correlation id still
 * belongs to the op that launched it; a user_annotation twin nested in the
 * cpu_op of the same name is one node; a gloo op sets use_gloo. */
static void test_comm_nodes_pt2(void **state)
{
	struct model m;
	struct an_profile p;
	uint32_t t, s;
	const struct an_comm_node *c;

	(void)state;
	model_init(&m);
	t = mb_thr(&m, "1", "1");
	s = mb_thr(&m, "0", "stream 9");
	mb_ev(&m, t, MK_USER_ANNOTATION, "ProfilerStep#4", 0, 1000, MODEL_NONE, MODEL_NONE);
	mb_comm_op(&m, t, MK_CPU_OP, "nccl:all_reduce", 100, 50, 7, "[[16, 4]]", "['float']");
	mb_comm_op(&m, t, MK_USER_ANNOTATION, "nccl:all_reduce", 105, 40, 8, "[[16, 4]]",
		   "['float']");
	mb_ev(&m, t, MK_CPU_OP, "record_param_comms", 110, 20, 9, MODEL_NONE);
	mb_ev(&m, t, MK_RUNTIME, "cudaLaunchKernelExC", 115, 5, 9, 900);
	mb_ev(&m, s, MK_KERNEL,
	      "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
	      130, 300, 900, 900);
	mb_ev(&m, t, MK_CPU_OP, "aten::mul", 200, 10, 10, MODEL_NONE);
	mb_ev(&m, t, MK_RUNTIME, "cudaLaunchKernel", 202, 5, 10, 901);
	mb_ev(&m, s, MK_KERNEL, "mul_kernel", 440, 10, 10, 901);
	mb_comm_op(&m, t, MK_CPU_OP, "gloo:broadcast", 600, 30, 11, "[[8]]", "['long int']");
	compute(&p, &m, 1);

	assert_int_equal(p.comm_nodes.n, 2);
	assert_true(p.use_nccl);
	assert_true(p.use_gloo);
	c = &p.comm_nodes.v[0];
	assert_string_equal(model_str(&m, c->name), "nccl:all_reduce");
	assert_int_equal(c->step, 0);
	assert_int_equal(c->bytes, 256);
	assert_int_equal(c->nranges, 2);
	assert_int_equal(p.comm_ranges.v[c->first_range].start, 100);
	assert_int_equal(p.comm_ranges.v[c->first_range].end, 150);
	assert_int_equal(p.comm_ranges.v[c->first_range + 1].start, 130);
	assert_int_equal(p.comm_ranges.v[c->first_range + 1].end, 430);
	c = &p.comm_nodes.v[1];
	assert_string_equal(model_str(&m, c->name), "gloo:broadcast");
	assert_int_equal(c->bytes, 64);
	assert_int_equal(c->nranges, 1);
	an_profile_release(&p);
	model_release(&m);
}

/* Modern Kineto (PyTorch >= 2.1): no Input Dims on the nccl:* range, but
 * record_param_comms' "In msg nelems" and "dtype" (c10 ScalarType names),
 * on the op or copied onto the collective kernel. bytes = nelems x size:
 *   nccl:all_reduce (user_annotation, no args) -> its kernel: 1024 BFloat16
 *     = 1024 x 2 = 2048
 *   nccl:broadcast (cpu_op with its own args): 10 Long = 10 x 8 = 80 (its
 *     kernel's args, 99 Float, are not added on top)
 *   nccl:all_gather (no args) -> kernel 3 Double = 24, + 5 Bool = 5: the
 *     node's two kernels sum to 29
 *   nccl:reduce_scatter: kernel dtype "Weird" (unknown) -> 0
 * Before: every one was 0. */
#define KT(name, ts, dur, corr, args)                                                              \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts   \
	",\"dur\":" #dur ",\"args\":{\"device\":0,\"stream\":7,\"correlation\":" #corr args "}},"
#define RTK(ts, corr)                                                                              \
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":"  \
	"1,"                                                                                       \
	"\"ts\":" #ts ",\"dur\":2,\"args\":{\"correlation\":" #corr "}},"
#define HOST(cat, name, ts, dur, args)                                                             \
	"{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts  \
	",\"dur\":" #dur ",\"args\":{" args "}},"
static const char COMM_NELEMS[] = "{\"schemaVersion\":1,\"traceEvents\":[" HOST(
    "user_annotation", "ProfilerStep#1", 0, 2000,
    "") HOST("cpu_op", "record_param_comms", 95, 4,
	     "\"Collective name\":\"allreduce\",\"dtype\":\"BFloat16\",\"In msg nelems\":1024")
    HOST("user_annotation", "nccl:all_reduce", 100, 50,
	 "") RTK(110, 900) KT("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 130, 100, 900,
			      ",\"In msg nelems\":1024,\"dtype\":\"BFloat16\"")
	HOST("cpu_op", "nccl:broadcast", 300, 50, "\"In msg nelems\":10,\"dtype\":\"Long\"") RTK(
	    310, 901) KT("ncclDevKernel_Broadcast_RING_LL", 330, 10, 901,
			 ",\"In msg nelems\":99,\"dtype\":\"Float\"")
	    HOST("user_annotation", "nccl:all_gather", 500, 50,
		 "") RTK(505, 902) RTK(510, 903) KT("ncclDevKernel_AllGather_RING_LL", 520, 10, 902,
						    ",\"In msg nelems\":3,\"dtype\":\"Double\"")
		KT("ncclDevKernel_AllGather_RING_LL", 540, 10, 903,
		   ",\"In msg nelems\":5,\"dtype\":\"Bool\"")
		    HOST("user_annotation", "nccl:reduce_scatter", 700, 50, "") RTK(705, 904) KT(
			"ncclDevKernel_ReduceScatter_RING_LL", 720, 10, 904,
			",\"In msg nelems\":8,\"dtype\":\"Weird\"") "{\"ph\":\"M\",\"name\":"
								    "\"process_name\",\"pid\":9,"
								    "\"args\":{\"name\":\"x\"}}]}";

static void test_comm_bytes_nelems(void **state)
{
	struct model m;
	struct an_profile p;
	const struct an_profile *pp[1] = {&p};
	const char *names[1] = {"w0"};
	struct an_dist d;
	struct nns_err err;
	const struct an_dist_comm_row *r;

	(void)state;
	assert_int_equal(tu_kineto_profile(COMM_NELEMS, &m, NULL), 0);
	compute(&p, &m, 0);
	assert_int_equal(p.comm_nodes.n, 4);
	assert_int_equal(an_dist_compute(&d, pp, names, 1, &err), 0);
	assert_non_null(r = crow(&d, 0, "nccl:all_reduce"));
	assert_int_equal(r->total_bytes, 2048);
	assert_non_null(r = crow(&d, 0, "nccl:broadcast"));
	assert_int_equal(r->total_bytes, 80);
	assert_non_null(r = crow(&d, 0, "nccl:all_gather"));
	assert_int_equal(r->total_bytes, 29);
	assert_non_null(r = crow(&d, 0, "nccl:reduce_scatter"));
	assert_int_equal(r->total_bytes, 0);
	an_dist_release(&d);
	an_profile_release(&p);
	model_release(&m);
}

/* ---- degraded matching ------------------------------------------------------------ */

static void worker_a(struct model *m)
{
	uint32_t t = mb_thr(m, "1", "1"), s = mb_thr(m, "0", "stream 1");
	mb_ev(m, t, MK_USER_ANNOTATION, "ProfilerStep#1", 0, 1000, MODEL_NONE, MODEL_NONE);
	mb_comm_op(m, t, MK_CPU_OP, "nccl:all_reduce", 100, 10, 1, "[[10]]", "['float']");
	mb_ev(m, s, MK_KERNEL, "ncclKernel_AllReduce", 120, 100, 1, 1001);
	mb_comm_op(m, t, MK_CPU_OP, "nccl:broadcast", 300, 10, 2, "[[3]]", "['float']");
	mb_ev(m, s, MK_KERNEL, "ncclKernel_Broadcast", 320, 10, 2, 1002);
	mb_comm_op(m, t, MK_CPU_OP, "nccl:all_reduce", 500, 10, 3, "[[10]]", "['float']");
	mb_ev(m, s, MK_KERNEL, "ncclKernel_AllReduce", 520, 40, 3, 1003);
}

static void worker_b(struct model *m)
{
	uint32_t t = mb_thr(m, "1", "1"), s = mb_thr(m, "0", "stream 1");
	mb_ev(m, t, MK_USER_ANNOTATION, "ProfilerStep#1", 0, 1000, MODEL_NONE, MODEL_NONE);
	mb_comm_op(m, t, MK_CPU_OP, "nccl:all_reduce", 100, 10, 1, "[[10]]", "['float']");
	mb_ev(m, s, MK_KERNEL, "ncclKernel_AllReduce", 150, 60, 1, 1001);
	mb_comm_op(m, t, MK_CPU_OP, "nccl:all_reduce", 500, 10, 3, "[[10]]", "['float']");
	mb_ev(m, s, MK_KERNEL, "ncclKernel_AllReduce", 530, 30, 3, 1003);
}

static void worker_c(struct model *m)
{
	uint32_t t = mb_thr(m, "1", "1");
	mb_ev(m, t, MK_USER_ANNOTATION, "ProfilerStep#1", 0, 1000, MODEL_NONE, MODEL_NONE);
	mb_ev(m, t, MK_CPU_OP, "aten::add", 0, 100, 5, MODEL_NONE);
}

static void test_degraded(void **state)
{
	struct model m[3];
	struct an_profile p[3];
	const struct an_profile *pp[3] = {&p[0], &p[1], &p[2]};
	const char *names[3] = {"a", "b", "c"};
	struct an_dist d;
	struct nns_err err;
	const struct an_dist_comm_row *r;
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		model_init(&m[i]);
	worker_a(&m[0]);
	worker_b(&m[1]);
	worker_c(&m[2]);
	for (i = 0; i < 3; i++)
		compute(&p[i], &m[i], 1);
	assert_int_equal(an_dist_compute(&d, pp, names, 3, &err), 0);

	assert_true(d.available);
	assert_true(strstr(d.note, "no communication ops in c") != NULL);
	assert_true(strstr(d.note, "matched by name") != NULL);
	assert_int_equal(d.workers.n, 3);
	assert_string_equal(d.workers.v[0].name, "a");
	assert_int_equal(d.workers.v[0].comparable, 0); /* its broadcast is unmatched */
	assert_int_equal(d.workers.v[1].comparable, 1);
	assert_int_equal(d.workers.v[2].comparable, 0);

	/* overlap bars: no kernels outside comm, no CPU ops: all communication */
	assert_true(d.workers.v[0].computation == 0 && d.workers.v[0].overlap == 0);
	assert_true(d.workers.v[0].communication == 180);
	assert_true(d.workers.v[0].other == 820);
	/* worker c: CPU ops stand in for kernels */
	assert_true(d.workers.v[2].computation == 100);
	assert_true(d.workers.v[2].communication == 0);
	assert_true(d.workers.v[2].other == 900);

	/* matched all_reduce #0: kernel min(100, 60); #1: min(40, 30) */
	assert_true(d.workers.v[0].transfer == 110);
	assert_true(d.workers.v[0].synchronizing == 50);
	assert_true(d.workers.v[1].transfer == 110);
	assert_true(d.workers.v[1].synchronizing == 0);

	assert_int_equal(d.comm_ops.n, 3);
	assert_string_equal(d.comm_ops.v[0].name, "nccl:all_reduce"); /* first use first */
	r = crow(&d, 0, "nccl:all_reduce");
	assert_non_null(r);
	assert_int_equal(r->calls, 2);
	assert_int_equal(r->total_bytes, 80);
	assert_int_equal(r->total_latency, 160);
	assert_int_equal(r->transfer, 110);
	r = crow(&d, 0, "nccl:broadcast");
	assert_non_null(r);
	assert_int_equal(r->calls, 1);
	assert_int_equal(r->total_latency, 20);
	assert_int_equal(r->transfer, 0);
	r = crow(&d, 1, "nccl:all_reduce");
	assert_non_null(r);
	assert_int_equal(r->total_latency, 110);
	assert_int_equal(r->transfer, 110);
	assert_null(crow(&d, 2, "nccl:all_reduce"));

	an_dist_release(&d);
	for (i = 0; i < 3; i++) {
		an_profile_release(&p[i]);
		model_release(&m[i]);
	}
}

/* Same sequences, but one op lacks its kernel on one worker: that op is
 * left out on every worker; the others still match by index. */
static void test_kernel_count_mismatch(void **state)
{
	struct model m[2];
	struct an_profile p[2];
	const struct an_profile *pp[2] = {&p[0], &p[1]};
	struct an_dist d;
	struct nns_err err;
	uint32_t t, s;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		model_init(&m[i]);
		t = mb_thr(&m[i], "1", "1");
		s = mb_thr(&m[i], "0", "stream 1");
		mb_comm_op(&m[i], t, MK_CPU_OP, "nccl:all_reduce", 0, 10, 1, "[[1]]", "['float']");
		mb_ev(&m[i], s, MK_KERNEL, "ncclKernel_AllReduce", 20, i ? 20 : 50, 1, 11);
		mb_comm_op(&m[i], t, MK_CPU_OP, "nccl:broadcast", 100, 10, 2, "[[1]]", "['float']");
		if (i == 0)
			mb_ev(&m[i], s, MK_KERNEL, "ncclKernel_Broadcast", 120, 10, 2, 12);
		compute(&p[i], &m[i], 1);
	}
	assert_int_equal(an_dist_compute(&d, pp, NULL, 2, &err), 0);
	assert_string_equal(d.workers.v[1].name, "worker1");
	assert_int_equal(d.workers.v[0].comparable, 0);
	assert_int_equal(d.workers.v[1].comparable, 0);
	assert_true(strstr(d.note, "1 comm ops have different kernel counts") != NULL);
	assert_true(strstr(d.note, "matched by name") == NULL);
	/* all_reduce: op 10 + kernel min(50, 20) on worker 0 */
	assert_true(d.workers.v[0].transfer == 30);
	assert_true(d.workers.v[0].synchronizing == 30);
	assert_true(d.workers.v[1].transfer == 30);
	assert_true(d.workers.v[1].synchronizing == 0);
	an_dist_release(&d);
	for (i = 0; i < 2; i++) {
		an_profile_release(&p[i]);
		model_release(&m[i]);
	}
}

/* ---- tb_plugin conformance: test_distributed_nccl ----------------------------------- */

static int64_t us_int(double ns)
{
	return (int64_t)(ns / 1000.0); /* tb_plugin int() */
}

static void test_conformance_10(void **state)
{
	json_t *j = tu_load_shared_json("conformance/tbplugin/10_distributed_nccl.json"), *exp,
	       *dist, *v;
	const char *keys[2] = {"json_content0", "json_content1"};
	const char *names[2] = {"worker0", "worker1"};
	struct model m[2];
	struct an_profile p[2];
	const struct an_profile *pp[2] = {&p[0], &p[1]};
	struct an_dist d;
	struct nns_err err;
	const char *wname;
	int i;
	size_t k;

	(void)state;
	if (!j) {
		skip();
		return;
	}
	for (i = 0; i < 2; i++) {
		/* through the real Kineto importer */
		assert_int_equal(tu_model_from_events(
				     json_object_get(json_object_get(j, "inputs"), keys[i]), &m[i]),
				 0);
		compute(&p[i], &m[i], 0);
	}
	exp = json_object_get(j, "expected");
	for (i = 0; i < 2; i++) {
		const json_t *w = json_object_get(exp, names[i]);
		assert_int_equal(p[i].overview.has_communication,
				 json_is_true(json_object_get(w, "has_communication")));
		assert_int_equal(p[i].comm_nodes.n,
				 json_integer_value(json_object_get(w, "len(comm_node_list)")));
	}
	v = json_object_get(json_object_get(exp, "worker0"),
			    "steps_costs[0].costs (ProfileRole order)");
	assert_int_equal(p[0].overview.steps.n, 1);
	for (k = 0; k < AN_NROLES; k++)
		assert_int_equal(p[0].overview.steps.v[0].cost[k],
				 json_integer_value(json_array_get(v, k)) * 1000);
	assert_int_equal(p[0].overview.steps.v[0].end - p[0].overview.steps.v[0].start,
			 json_integer_value(json_array_get(v, AN_NROLES)) * 1000);
	assert_int_equal(
	    p[1].overview.steps.v[0].cost[AN_COMM],
	    json_integer_value(json_object_get(json_object_get(exp, "worker1"),
					       "steps_costs[0].costs[Communication]")) *
		1000);

	assert_int_equal(an_dist_compute(&d, pp, names, 2, &err), 0);
	assert_true(d.available);
	assert_string_equal(d.note, "");
	dist = json_object_get(
	    exp, "distributed (RunLoader._process_distributed_profiles([w0, w1], span=0))");
	json_object_foreach(json_object_get(dist, "steps_to_overlap['data']['0']"), wname, v)
	{
		const struct an_dist_worker *w = &d.workers.v[strcmp(wname, "worker1") == 0];
		assert_string_equal(w->name, wname);
		assert_int_equal(us_int(w->computation), json_integer_value(json_array_get(v, 0)));
		assert_int_equal(us_int(w->overlap), json_integer_value(json_array_get(v, 1)));
		assert_int_equal(us_int(w->communication),
				 json_integer_value(json_array_get(v, 2)));
		assert_int_equal(us_int(w->other), json_integer_value(json_array_get(v, 3)));
		assert_int_equal(w->comparable, 1);
	}
	json_object_foreach(json_object_get(dist, "steps_to_wait['data']['0']"), wname, v)
	{
		const struct an_dist_worker *w = &d.workers.v[strcmp(wname, "worker1") == 0];
		assert_int_equal(us_int(w->transfer), json_integer_value(json_array_get(v, 0)));
		assert_int_equal(us_int(w->synchronizing),
				 json_integer_value(json_array_get(v, 1)));
	}
	json_object_foreach(json_object_get(dist, "comm_ops['data'][worker]['rows']"), wname, v)
	{
		uint32_t wi = strcmp(wname, "worker1") == 0;
		size_t nrows = 0, x;
		for (x = 0; x < d.comm_ops.n; x++)
			nrows += d.comm_ops.v[x].worker == wi;
		assert_int_equal(nrows, json_array_size(v));
		for (x = 0; x < json_array_size(v); x++) {
			const json_t *er = json_array_get(v, x);
			const struct an_dist_comm_row *r =
			    crow(&d, wi, json_string_value(json_array_get(er, 0)));
			assert_non_null(r);
			assert_int_equal(r->calls, json_integer_value(json_array_get(er, 1)));
			assert_int_equal(r->total_bytes, json_integer_value(json_array_get(er, 2)));
			assert_int_equal(llround((double)r->total_bytes / (double)r->calls),
					 json_integer_value(json_array_get(er, 3)));
			assert_int_equal(r->total_latency,
					 json_integer_value(json_array_get(er, 4)) * 1000);
			assert_int_equal(
			    llround((double)r->total_latency / 1000.0 / (double)r->calls),
			    json_integer_value(json_array_get(er, 5)));
			assert_int_equal(r->transfer,
					 json_integer_value(json_array_get(er, 6)) * 1000);
			assert_int_equal(llround((double)r->transfer / 1000.0 / (double)r->calls),
					 json_integer_value(json_array_get(er, 7)));
		}
	}
	an_dist_release(&d);
	for (i = 0; i < 2; i++) {
		an_profile_release(&p[i]);
		model_release(&m[i]);
	}
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_comm_bytes),
	    cmocka_unit_test(test_comm_bytes_nelems),
	    cmocka_unit_test(test_comm_nodes_pt2),
	    cmocka_unit_test(test_degraded),
	    cmocka_unit_test(test_kernel_count_mismatch),
	    cmocka_unit_test(test_conformance_10),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
