/*
 * test_output_files.c - the SPEC §4 JSON contract and the CSV tables,
 * checked on a hand-filled struct an_profile (no importer or analysis
 * involved): file layout, every contract key, values and units (ns -> µs),
 * nulls for absent metrics, atomic writes, distributed.json, the diff
 * document, and the terminal report.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/output.h"
#include "output/report.h"
#include "testutil.h"

struct fixture {
	struct model m;
	struct an_profile p;
	char dir[64];
};

static uint32_t S(struct model *m, const char *s)
{
	return model_intern(m, s, strlen(s));
}

static void fill(struct fixture *fx)
{
	struct model *m = &fx->m;
	struct an_profile *p = &fx->p;
	struct model_device dev;
	struct an_step st;
	struct an_gpu g;
	struct an_op_row op;
	struct an_kernel_row k;
	struct an_mem_device md;
	struct an_mem_op_row mo;
	struct an_module_row mr;
	struct an_advice_item ad;

	assert_int_equal(model_init(m), NNS_OK);
	m->min_ts = 1000000000; /* 1 s */
	m->max_end = 1000300000;
	m->diag.events_skipped = 3;
	strcpy(m->diag.first_problem, "bad \"ts\" at byte 17");
	memset(&dev, 0, sizeof(dev));
	dev.id = 0;
	dev.name = S(m, "Tesla V100-SXM2-16GB");
	dev.total_mem = 16945512448;
	dev.major = 7;
	dev.minor = 0;
	dev.num_sms = 80;
	assert_int_equal(model_add_device(m, &dev), NNS_OK);

	memset(p, 0, sizeof(*p));
	p->m = m;
	for (int i = 0; i < 2; i++) {
		memset(&st, 0, sizeof(st));
		snprintf(st.name, sizeof(st.name), "%d", 5 + i);
		st.host_start = st.start = 1000000000 + i * 100000;
		st.host_end = st.start + 90000;
		st.end = st.start + 100000; /* 100 µs */
		st.cost[AN_KERNEL] = 60000;
		st.cost[AN_MEMCPY] = 1500;
		st.cost[AN_RUNTIME] = 8500;
		st.cost[AN_CPUOP] = 20000;
		st.cost[AN_OTHER] = 10000;
		st.device_nodes = 7;
		assert_int_equal(vec_push(&p->overview.steps, st), 0);
	}
	p->overview.avg[AN_KERNEL] = 60000;
	p->overview.avg[AN_MEMCPY] = 1500;
	p->overview.avg[AN_RUNTIME] = 8500;
	p->overview.avg[AN_CPUOP] = 20000;
	p->overview.avg[AN_OTHER] = 10000;
	p->overview.avg_total = 100000;
	p->overview.has_kernel = p->overview.has_runtime = p->overview.has_memcpy_or_memset = 1;

	memset(&g, 0, sizeof(g));
	g.id = 0;
	g.utilization = 0.6;
	g.sm_efficiency = -1; /* absent -> null */
	g.achieved_occupancy = 37.5;
	g.tensor_core_ratio = 0.25;
	g.kernel_time = 120000;
	assert_int_equal(vec_push(&g.util_buckets, ((struct an_point){1000000000, 0.5})), 0);
	assert_int_equal(vec_push(&g.util_buckets, ((struct an_point){1000200000, 0.0})), 0);
	assert_int_equal(vec_push(&p->gpus, g), 0);

	memset(&op, 0, sizeof(op));
	op.name = S(m, "aten::conv2d");
	op.calls = 4;
	op.host_self = 1000;
	op.host_total = 5000;
	op.dev_self = 0;
	op.dev_total = 40000;
	op.tc_total = 10000;
	op.tc_eligible = 1;
	assert_int_equal(vec_push(&p->ops.by_name, op), 0);
	op.input_shape = S(m, "[[8, 3, 224, 224], [64, 3, 7, 7]]");
	assert_int_equal(vec_push(&p->ops.by_name_shape, op), 0);
	memset(&op, 0, sizeof(op));
	op.name = S(m, "aten::add_");
	op.calls = 2;
	op.host_self = op.host_total = 300;
	op.dev_self = op.dev_total = 2000;
	assert_int_equal(vec_push(&p->ops.by_name, op), 0);
	p->ops.sort_by_device = 1;

	memset(&k, 0, sizeof(k));
	k.name = S(m, "volta_h884gemm_64x64_ldg8_nn");
	k.calls = 4;
	k.total = 40000;
	k.min = 9000;
	k.max = 11000;
	k.mean_blocks_per_sm = 1.25;
	k.mean_occupancy = 12.5;
	k.tensor_core = 1;
	assert_int_equal(vec_push(&p->kernels.by_name, k), 0);
	k.op_name = S(m, "aten::conv2d");
	k.grid = S(m, "[80, 1, 1]");
	k.block = S(m, "[256, 1, 1]");
	k.regs = 128;
	k.shared_mem = 49152;
	assert_int_equal(vec_push(&p->kernels.by_properties, k), 0);
	memset(&k, 0, sizeof(k));
	k.name = S(m, "vectorized_elementwise_kernel");
	k.calls = 2;
	k.total = 2000;
	k.min = k.max = 1000;
	assert_int_equal(vec_push(&p->kernels.by_properties, k), 0); /* op_name 0 -> "N/A" */
	p->kernels.total_time = 42000;
	p->kernels.tc_used_ratio = 40000.0 / 42000.0;

	memset(&md, 0, sizeof(md));
	strcpy(md.name, "CPU");
	md.device_type = 0;
	md.device_id = -1;
	md.peak_allocated = -1; /* no totals -> null */
	assert_int_equal(vec_push(&p->memory.devices, md), 0);
	memset(&md, 0, sizeof(md));
	strcpy(md.name, "GPU0");
	md.device_type = 1;
	md.peak_allocated = 4096;
	memset(&mo, 0, sizeof(mo));
	mo.name = S(m, "aten::empty");
	mo.calls = 3;
	mo.size_increase = mo.self_size_increase = 1024;
	mo.alloc_count = mo.self_alloc_count = 2;
	mo.alloc_size = mo.self_alloc_size = 2048;
	assert_int_equal(vec_push(&md.ops, mo), 0);
	assert_int_equal(vec_push(&md.curve, ((struct an_mem_point){1000010000, 2048, 4096})), 0);
	assert_int_equal(vec_push(&md.curve, ((struct an_mem_point){1000020000, 4096, 8192})), 0);
	assert_int_equal(
	    vec_push(&md.events, ((struct an_mem_event){.op = S(m, "aten::empty"),
							.addr = 0x10,
							.size = 2048,
							.alloc_ts = 1000010000,
							.free_ts = 1000015000,
							.parent_op = S(m, "aten::conv2d")})),
	    0);
	assert_int_equal(vec_push(&md.events, ((struct an_mem_event){.addr = 0x20,
								     .size = 512,
								     .alloc_ts = 1000020000,
								     .free_ts = MODEL_NONE})),
			 0);
	assert_int_equal(vec_push(&p->memory.devices, md), 0);

	memset(&mr, 0, sizeof(mr));
	mr.name = S(m, "nn.Module: ResNet");
	mr.module_id = 1;
	mr.parent = MODEL_NOIDX;
	mr.occurrences = 2;
	mr.operators = 10;
	mr.host_total = 90000;
	mr.dev_total = 60000;
	assert_int_equal(vec_push(&p->modules.rows, mr), 0);
	mr.name = S(m, "nn.Module: Conv2d");
	mr.module_id = 2;
	mr.parent = 0;
	assert_int_equal(vec_push(&p->modules.rows, mr), 0);

	memset(&ad, 0, sizeof(ad));
	strcpy(ad.id, "gpu_util");
	ad.text = strdup("GPU 0 has low utilization (60.00%). Increase the batch size.");
	assert_int_equal(vec_push(&p->advice.items, ad), 0);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	fill(fx);
	strcpy(fx->dir, "/tmp/nns_test_out_XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	/* the profile is hand-made: an_profile_release frees exactly its vecs */
	an_profile_release(&fx->p);
	model_release(&fx->m);
	tu_rmtree(fx->dir);
	free(fx);
	return 0;
}

static json_t *load(const char *dir, const char *sub, const char *file)
{
	char path[512];
	json_error_t je;
	json_t *j;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, file);
	j = json_load_file(path, 0, &je);
	if (!j)
		fprintf(stderr, "%s: %s (line %d)\n", path, je.text, je.line);
	assert_non_null(j);
	return j;
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_number(v))
		fprintf(stderr, "key %s is not a number\n", key);
	assert_true(json_is_number(v));
	return json_number_value(v);
}

static void has_keys(const json_t *o, const char *const *keys)
{
	assert_true(json_is_object(o));
	for (size_t i = 0; keys[i]; i++) {
		if (!json_object_get(o, keys[i]))
			fprintf(stderr, "missing key %s\n", keys[i]);
		assert_non_null(json_object_get(o, keys[i]));
	}
}

static const char *const STEP_KEYS[] = {
    "name",	  "total_us",	   "kernel_us",	  "memcpy_us", "memset_us", "communication_us",
    "runtime_us", "dataloader_us", "cpu_exec_us", "other_us",  NULL,
};

static void write_all(struct fixture *fx, int csv)
{
	struct out_source src = {"worker0", "1", "/data/worker0.123.pt.trace.json", "run"};
	struct out_opts oo = {csv, 0};
	struct nns_err err;

	nns_err_clear(&err);
	assert_int_equal(out_write_profile(fx->dir, &src, &fx->p, &oo, &err), NNS_OK);
}

static void test_overview(void **state)
{
	static const char *const GPU_KEYS[] = {
	    "id",	   "name",	    "memory_bytes",	  "compute_capability",
	    "utilization", "sm_efficiency", "achieved_occupancy", "tensor_core_ratio",
	    NULL,
	};
	struct fixture *fx = *state;
	json_t *j, *steps, *gpu, *avg, *rec;

	write_all(fx, 0);
	j = load(fx->dir, "worker0.1", "overview.json");
	steps = json_object_get(j, "steps");
	assert_int_equal(json_array_size(steps), 2);
	for (size_t i = 0; i < 2; i++)
		has_keys(json_array_get(steps, i), STEP_KEYS);
	assert_string_equal(json_string_value(json_object_get(json_array_get(steps, 0), "name")),
			    "5");
	assert_true(num(json_array_get(steps, 0), "total_us") == 100.0);
	assert_true(num(json_array_get(steps, 0), "kernel_us") == 60.0);
	assert_true(num(json_array_get(steps, 0), "memcpy_us") == 1.5);
	assert_true(num(json_array_get(steps, 1), "start_us") == 1000100.0);
	avg = json_object_get(j, "average");
	has_keys(avg, STEP_KEYS + 1);
	assert_true(num(avg, "total_us") == 100.0);
	assert_true(num(avg, "cpu_exec_us") == 20.0);

	gpu = json_array_get(json_object_get(j, "gpus"), 0);
	has_keys(gpu, GPU_KEYS);
	assert_true(num(gpu, "id") == 0);
	assert_string_equal(json_string_value(json_object_get(gpu, "name")),
			    "Tesla V100-SXM2-16GB");
	assert_true(num(gpu, "memory_bytes") == 16945512448.0);
	assert_string_equal(json_string_value(json_object_get(gpu, "compute_capability")), "7.0");
	assert_true(num(gpu, "utilization") == 0.6);
	assert_true(json_is_null(json_object_get(gpu, "sm_efficiency")));
	assert_true(num(gpu, "achieved_occupancy") == 37.5);
	assert_true(num(gpu, "tensor_core_ratio") == 0.25);
	assert_int_equal(json_array_size(json_object_get(gpu, "gpu_util_timeline")), 2);

	rec = json_array_get(json_object_get(j, "recommendations"), 0);
	assert_string_equal(json_string_value(json_object_get(rec, "id")), "gpu_util");
	assert_non_null(strstr(json_string_value(json_object_get(rec, "text")), "low utilization"));

	assert_string_equal(json_string_value(json_object_get(j, "worker")), "worker0");
	assert_string_equal(json_string_value(json_object_get(j, "span")), "1");
	assert_true(num(json_object_get(j, "diagnostics"), "events_skipped") == 3);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(j, "diagnostics"), "first_problem")),
	    "bad \"ts\" at byte 17");
	json_decref(j);
}

static void test_operators(void **state)
{
	static const char *const OP_KEYS[] = {
	    "name",	      "calls",
	    "host_self_us",   "host_total_us",
	    "device_self_us", "device_total_us",
	    "tc_eligible",    "tc_self_ratio",
	    "tc_total_ratio", NULL,
	};
	struct fixture *fx = *state;
	json_t *j, *r;

	write_all(fx, 0);
	j = load(fx->dir, "worker0.1", "operators.json");
	assert_int_equal(json_array_size(json_object_get(j, "by_name")), 2);
	r = json_array_get(json_object_get(j, "by_name"), 0);
	has_keys(r, OP_KEYS);
	assert_string_equal(json_string_value(json_object_get(r, "name")), "aten::conv2d");
	assert_true(num(r, "calls") == 4);
	assert_true(num(r, "host_self_us") == 1.0);
	assert_true(num(r, "host_total_us") == 5.0);
	assert_true(num(r, "device_total_us") == 40.0);
	assert_true(json_is_true(json_object_get(r, "tc_eligible")));
	assert_true(num(r, "tc_self_ratio") == 0.0); /* 0 / 0 */
	assert_true(num(r, "tc_total_ratio") == 0.25);
	r = json_array_get(json_object_get(j, "by_name_shape"), 0);
	has_keys(r, OP_KEYS);
	assert_string_equal(json_string_value(json_object_get(r, "input_shape")),
			    "[[8, 3, 224, 224], [64, 3, 7, 7]]");
	assert_true(json_is_array(json_object_get(j, "by_name_stack")));
	json_decref(j);
}

static void test_kernels(void **state)
{
	static const char *const K_KEYS[] = {
	    "name",	   "calls",  "total_us",	   "mean_us",
	    "min_us",	   "max_us", "mean_blocks_per_sm", "mean_occupancy",
	    "tensor_core", NULL,
	};
	static const char *const P_KEYS[] = {
	    "op_name", "grid", "block", "registers_per_thread", "shared_memory", NULL,
	};
	struct fixture *fx = *state;
	json_t *j, *r;

	write_all(fx, 0);
	j = load(fx->dir, "worker0.1", "kernels.json");
	r = json_array_get(json_object_get(j, "by_name"), 0);
	has_keys(r, K_KEYS);
	assert_true(num(r, "total_us") == 40.0);
	assert_true(num(r, "mean_us") == 10.0);
	assert_true(num(r, "min_us") == 9.0);
	assert_true(num(r, "max_us") == 11.0);
	assert_true(num(r, "mean_blocks_per_sm") == 1.25);
	assert_true(json_is_true(json_object_get(r, "tensor_core")));
	r = json_array_get(json_object_get(j, "by_properties"), 0);
	has_keys(r, K_KEYS);
	has_keys(r, P_KEYS);
	assert_string_equal(json_string_value(json_object_get(r, "grid")), "[80, 1, 1]");
	assert_true(num(r, "registers_per_thread") == 128);
	r = json_array_get(json_object_get(j, "by_properties"), 1);
	assert_string_equal(json_string_value(json_object_get(r, "op_name")), "N/A");
	json_decref(j);
}

static void test_memory(void **state)
{
	static const char *const M_KEYS[] = {
	    "name",
	    "calls",
	    "size_increase",
	    "self_size_increase",
	    "alloc_count",
	    "self_alloc_count",
	    "alloc_size",
	    "self_alloc_size",
	    NULL,
	};
	static const char *const E_KEYS[] = {"op",	"size",	       "alloc_us",
					     "free_us", "duration_us", NULL};
	struct fixture *fx = *state;
	json_t *j, *devs, *gpu, *pt, *ev;

	write_all(fx, 0);
	j = load(fx->dir, "worker0.1", "memory.json");
	devs = json_object_get(j, "devices");
	assert_int_equal(json_object_size(devs), 2);
	assert_true(
	    json_is_null(json_object_get(json_object_get(devs, "CPU"), "peak_allocated_bytes")));
	assert_int_equal(json_array_size(json_object_get(json_object_get(devs, "CPU"), "ops")), 0);
	gpu = json_object_get(devs, "GPU0");
	assert_true(num(gpu, "peak_allocated_bytes") == 4096);
	has_keys(json_array_get(json_object_get(gpu, "ops"), 0), M_KEYS);
	/* curve: [µs since model min_ts, allocated, reserved] */
	pt = json_array_get(json_object_get(gpu, "curve"), 1);
	assert_int_equal(json_array_size(pt), 3);
	assert_true(json_number_value(json_array_get(pt, 0)) == 20.0);
	assert_true(json_number_value(json_array_get(pt, 1)) == 4096);
	assert_true(json_number_value(json_array_get(pt, 2)) == 8192);
	ev = json_array_get(json_object_get(gpu, "events"), 0);
	has_keys(ev, E_KEYS);
	assert_string_equal(json_string_value(json_object_get(ev, "op")),
			    "aten::conv2d (aten::empty)");
	assert_string_equal(json_string_value(json_object_get(ev, "op_name")), "aten::empty");
	assert_true(num(ev, "alloc_us") == 10.0);
	assert_true(num(ev, "free_us") == 15.0);
	assert_true(num(ev, "duration_us") == 5.0);
	ev = json_array_get(json_object_get(gpu, "events"), 1);
	has_keys(ev, E_KEYS);
	assert_true(json_is_null(json_object_get(ev, "op")));
	assert_true(json_is_null(json_object_get(ev, "free_us")));
	assert_true(json_is_null(json_object_get(ev, "duration_us")));
	json_decref(j);
}

static void test_modules_and_csv(void **state)
{
	struct fixture *fx = *state;
	char path[512], line[512];
	json_t *j, *r;
	FILE *f;
	DIR *d;
	struct dirent *de;

	write_all(fx, 1);
	j = load(fx->dir, "worker0.1", "modules.json");
	r = json_array_get(json_object_get(j, "modules"), 1);
	assert_true(num(r, "parent") == 0);
	assert_true(json_is_null(
	    json_object_get(json_array_get(json_object_get(j, "modules"), 0), "parent")));
	json_decref(j);

	snprintf(path, sizeof(path), "%s/worker0.1/step_trace.csv", fx->dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line,
			    "step,start_us,end_us,total_us,kernel_us,memcpy_us,memset_us,"
			    "communication_us,runtime_us,dataloader_us,cpu_exec_us,other_us\n");
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "5,1000000,1000100,100,60,1.5,0,0,8.5,0,20,10\n");
	fclose(f);

	snprintf(path, sizeof(path), "%s/worker0.1/op_statistics.csv", fx->dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "aten::conv2d,4,1,5,0,40,true,0,0.25\n");
	fclose(f);

	snprintf(path, sizeof(path), "%s/worker0.1/memory_ops.csv", fx->dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "GPU0,aten::empty,3,1024,1024,2,2,2048,2048\n");
	fclose(f);

	/* atomic writes leave no temporary files behind */
	snprintf(path, sizeof(path), "%s/worker0.1", fx->dir);
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		assert_null(strstr(de->d_name, ".tmp."));
	closedir(d);
	snprintf(path, sizeof(path), "%s/worker0.1/kernel_statistics.csv", fx->dir);
	assert_int_equal(access(path, R_OK), 0);
}

static void test_empty_profile(void **state)
{
	struct fixture *fx = *state;
	struct an_profile empty;
	struct out_source src = {"w", NULL, NULL, NULL};
	struct out_opts oo = {1, 0};
	struct nns_err err;
	json_t *j;

	an_profile_init(&empty, &fx->m); /* no pass has run */
	assert_int_equal(out_write_profile(fx->dir, &src, &empty, &oo, &err), NNS_OK);
	j = load(fx->dir, "w", "overview.json");
	assert_int_equal(json_array_size(json_object_get(j, "steps")), 0);
	assert_true(json_is_array(json_object_get(j, "gpus")));
	assert_true(json_is_array(json_object_get(j, "recommendations")));
	assert_true(json_is_null(json_object_get(j, "span")));
	json_decref(j);
	j = load(fx->dir, "w", "operators.json");
	assert_true(json_is_array(json_object_get(j, "by_name")));
	assert_true(json_is_array(json_object_get(j, "by_name_shape")));
	json_decref(j);
	j = load(fx->dir, "w", "kernels.json");
	assert_true(json_is_array(json_object_get(j, "by_properties")));
	json_decref(j);
	j = load(fx->dir, "w", "memory.json");
	assert_true(json_is_object(json_object_get(j, "devices")));
	json_decref(j);
	an_profile_release(&empty); /* what the writers asked the passes for */
}

static void test_unsafe_names(void **state)
{
	struct fixture *fx = *state;
	struct out_source src = {"../../escape", "../1", NULL, NULL};
	struct out_opts oo = {0, 0};
	struct nns_err err;
	char path[512];

	assert_int_equal(out_write_profile(fx->dir, &src, &fx->p, &oo, &err), NNS_OK);
	snprintf(path, sizeof(path), "%s/_.._.._escape._.._1/overview.json", fx->dir);
	assert_int_equal(access(path, R_OK), 0);
}

static void test_distributed(void **state)
{
	static const char *const W_KEYS[] = {
	    "worker",	"computation_us", "overlap_us",	      "communication_us",
	    "other_us", "transfer_us",	  "synchronizing_us", NULL,
	};
	static const char *const C_KEYS[] = {
	    "worker", "name", "calls", "total_bytes", "total_latency_us", "transfer_us", NULL,
	};
	struct fixture *fx = *state;
	struct an_dist d;
	struct an_dist_worker w;
	struct an_dist_comm_row c;
	struct nns_err err;
	json_t *j, *r;

	memset(&d, 0, sizeof(d));
	d.available = 1;
	for (int i = 0; i < 2; i++) {
		memset(&w, 0, sizeof(w));
		snprintf(w.name, sizeof(w.name), "host_%d", 100 + i);
		w.computation = 50000;
		w.overlap = 10000;
		w.communication = 20000;
		w.other = 5000;
		w.transfer = 15000;
		w.synchronizing = 5000 + i;
		w.comparable = 1;
		assert_int_equal(vec_push(&d.workers, w), 0);
	}
	memset(&c, 0, sizeof(c));
	c.worker = 1;
	strcpy(c.name, "nccl:all_reduce");
	c.calls = 4;
	c.total_bytes = 1 << 20;
	c.total_latency = 80000;
	c.transfer = 60000;
	assert_int_equal(vec_push(&d.comm_ops, c), 0);
	assert_int_equal(out_write_dist(fx->dir, "distributed.json", NULL, &d, &err), NNS_OK);
	j = load(fx->dir, ".", "distributed.json");
	r = json_array_get(json_object_get(j, "workers"), 1);
	has_keys(r, W_KEYS);
	assert_string_equal(json_string_value(json_object_get(r, "worker")), "host_101");
	assert_true(num(r, "computation_us") == 50.0);
	assert_true(num(r, "synchronizing_us") == 5.001);
	r = json_array_get(json_object_get(j, "comm_ops"), 0);
	has_keys(r, C_KEYS);
	assert_string_equal(json_string_value(json_object_get(r, "worker")), "host_101");
	assert_true(num(r, "total_bytes") == 1048576);
	assert_true(num(r, "total_latency_us") == 80.0);
	json_decref(j);
	vec_free(&d.workers);
	vec_free(&d.comm_ops);
}

static void test_diff_and_report(void **state)
{
	struct fixture *fx = *state;
	struct an_diff d;
	struct an_diff_row r;
	struct report_opts ro = {0, 10, 160};
	struct nns_err err;
	char path[512], *buf = NULL;
	size_t len = 0;
	json_t *j;
	FILE *f;

	memset(&d, 0, sizeof(d));
	memset(&r, 0, sizeof(r));
	strcpy(r.name, "aten::conv2d");
	r.base_calls = r.exp_calls = 4;
	r.base_dev = 40000;
	r.exp_dev = 30000;
	assert_int_equal(vec_push(&d.ops, r), 0);
	d.base_step[AN_NROLES] = 100000;
	d.exp_step[AN_NROLES] = 90000;
	d.base_steps = d.exp_steps = 2;
	snprintf(path, sizeof(path), "%s/sub/../diff.json", fx->dir);
	/* the parent "sub" does not exist: writing must fail cleanly */
	assert_int_not_equal(out_write_diff(path, &d, "a", "b", &err), NNS_OK);
	snprintf(path, sizeof(path), "%s/diff.json", fx->dir);
	assert_int_equal(out_write_diff(path, &d, "a.json", "b.json", &err), NNS_OK);
	j = load(fx->dir, ".", "diff.json");
	assert_true(num(json_object_get(json_object_get(j, "steps"), "delta"), "total_us") ==
		    -10.0);
	assert_true(num(json_array_get(json_object_get(j, "ops"), 0), "delta_device_total_us") ==
		    -10.0);
	json_decref(j);

	f = open_memstream(&buf, &len);
	report_diff(f, &d, "a.json", "b.json", &ro);
	report_profile(f, &fx->p, "worker0.1", RV_ALL, &ro);
	fclose(f);
	if (getenv("NNS_TEST_VERBOSE"))
		fputs(buf, stderr);
	assert_non_null(strstr(buf, "-10.0%"));
	assert_non_null(strstr(buf, "Average"));
	assert_non_null(strstr(buf, "aten::conv2d"));
	assert_non_null(strstr(buf, "Tesla V100"));
	assert_non_null(strstr(buf, "volta_h884gemm"));
	assert_non_null(strstr(buf, "GPU0: peak allocated 4.00 KiB"));
	assert_non_null(strstr(buf, "\n    Conv2d")); /* indented child, "nn.Module: " dropped */
	assert_non_null(strstr(buf, "[gpu_util]"));
	assert_non_null(strstr(buf, "3 event(s) skipped"));
	assert_null(strstr(buf, "\033["));
	free(buf);
	vec_free(&d.ops);
}

static void test_report_views(void **state)
{
	unsigned v = 0;

	(void)state;
	assert_int_equal(report_parse_views("all", &v), 0);
	assert_int_equal(v, RV_ALL);
	assert_int_equal(report_parse_views("kernels,memory", &v), 0);
	assert_int_equal(v, RV_KERNELS | RV_MEMORY);
	assert_int_equal(report_parse_views("bogus", &v), -1);
	assert_int_equal(report_parse_views("", &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_overview, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_operators, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kernels, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_memory, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_modules_and_csv, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_empty_profile, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unsafe_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_distributed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_diff_and_report, setup, teardown),
	    cmocka_unit_test(test_report_views),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
