/*
 * test_tbplugin_cases.c - the 11 conformance cases extracted from
 * tb_plugin's own test suite (../shared/conformance/tbplugin/NN_*.json).
 *
 * Each case's input events go through the real Kineto importer and every
 * analysis; then EVERY key of the case's "expected" object is checked. An
 * expected key this file does not know fails the test, so nothing is
 * skipped silently. Times in the cases are microseconds; the model is in
 * nanoseconds. Deliberate differences from tb_plugin are listed in
 * `deviations` with their hand-computed values and the reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US(ns) ((double)(ns) / 1000.0)

struct ctx {
	struct model m[2];
	struct an_profile p[2];
	int nworkers;
	json_t *doc;
};

static int close_to(double a, double b)
{
	return fabs(a - b) <= 1e-7 * (fabs(b) > 1 ? fabs(b) : 1);
}

#define CHECK_NUM(what, got, exp)                                                                  \
	do {                                                                                       \
		double g_ = (got), e_ = (exp);                                                     \
		if (!close_to(g_, e_)) {                                                           \
			print_error("%s: got %.10g expected %.10g\n", (what), g_, e_);             \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

static int role_index(const char *name)
{
	static const char *const names[] = {"Kernel",  "Memcpy",     "Memset", "Communication",
					    "Runtime", "DataLoader", "CpuOp",  "Other"};
	int i;

	for (i = 0; i < AN_NROLES; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return strcmp(name, "Total") == 0 ? AN_NROLES : -1;
}

static double step_cost(const struct an_step *s, int role)
{
	return role == AN_NROLES ? US(s->end - s->start) : US(s->cost[role]);
}

static void check_step(const struct an_profile *p, size_t i, json_t *exp)
{
	const char *k;
	json_t *v;

	assert_true(i < p->overview.steps.n);
	json_object_foreach(exp, k, v)
	{
		int r = role_index(k);
		char what[128];
		assert_true(r >= 0);
		snprintf(what, sizeof(what), "step %zu %s", i, k);
		CHECK_NUM(what, step_cost(&p->overview.steps.v[i], r), json_number_value(v));
	}
}

static void check_op(const struct an_profile *p, const char *name, json_t *exp, int need_shape)
{
	const struct an_op_row *r = tu_find_op(p, p->ops.by_name.v, p->ops.by_name.n, name);
	const char *k;
	json_t *v;
	char what[256];

	if (!r) {
		print_error("operator %s missing\n", name);
		fail();
	}
	json_object_foreach(exp, k, v)
	{
		snprintf(what, sizeof(what), "%s.%s", name, k);
		if (strcmp(k, "input_shape") == 0) {
			const struct an_op_row *s =
			    tu_find_op(p, p->ops.by_name_shape.v, p->ops.by_name_shape.n, name);
			assert_non_null(s);
			if (need_shape)
				assert_string_equal(model_str(p->m, s->input_shape),
						    json_string_value(v));
		} else if (strcmp(k, "calls") == 0) {
			CHECK_NUM(what, (double)r->calls, json_number_value(v));
		} else if (strcmp(k, "host_duration") == 0) {
			CHECK_NUM(what, US(r->host_total), json_number_value(v));
		} else if (strcmp(k, "device_duration") == 0) {
			CHECK_NUM(what, US(r->dev_total), json_number_value(v));
		} else if (strcmp(k, "self_host_duration") == 0) {
			CHECK_NUM(what, US(r->host_self), json_number_value(v));
		} else if (strcmp(k, "self_device_duration") == 0) {
			CHECK_NUM(what, US(r->dev_self), json_number_value(v));
		} else if (strcmp(k, "tc_eligible") == 0) {
			assert_int_equal(!!r->tc_eligible, json_is_true(v));
		} else if (strcmp(k, "tc_self_ratio") == 0) {
			CHECK_NUM(what, r->dev_self ? (double)r->tc_self / (double)r->dev_self : 0,
				  json_number_value(v));
		} else if (strcmp(k, "tc_total_ratio") == 0) {
			CHECK_NUM(what,
				  r->dev_total ? (double)r->tc_total / (double)r->dev_total : 0,
				  json_number_value(v));
		} else {
			print_error("unknown operator key %s\n", k);
			fail();
		}
	}
	/* the same numbers must hold in the name+shape grouping (one shape each) */
	if (need_shape) {
		const struct an_op_row *s =
		    tu_find_op(p, p->ops.by_name_shape.v, p->ops.by_name_shape.n, name);
		assert_non_null(s);
		assert_int_equal(s->calls, r->calls);
		assert_int_equal(s->host_self, r->host_self);
		assert_int_equal(s->dev_total, r->dev_total);
	}
}

static void check_kernel_prop(const struct an_profile *p, const struct an_kernel_row *r,
			      json_t *exp)
{
	const char *k;
	json_t *v;
	char what[256];

	json_object_foreach(exp, k, v)
	{
		snprintf(what, sizeof(what), "kernel %s.%s", model_str(p->m, r->name), k);
		if (strcmp(k, "name") == 0)
			assert_string_equal(model_str(p->m, r->name), json_string_value(v));
		else if (strcmp(k, "op_name") == 0)
			assert_string_equal(model_str(p->m, r->op_name), json_string_value(v));
		else if (strcmp(k, "grid") == 0)
			assert_string_equal(model_str(p->m, r->grid), json_string_value(v));
		else if (strcmp(k, "block") == 0)
			assert_string_equal(model_str(p->m, r->block), json_string_value(v));
		else if (strcmp(k, "registers per thread") == 0)
			CHECK_NUM(what, r->regs, json_number_value(v));
		else if (strcmp(k, "shared memory") == 0)
			CHECK_NUM(what, (double)r->shared_mem, json_number_value(v));
		else if (strcmp(k, "calls") == 0)
			CHECK_NUM(what, (double)r->calls, json_number_value(v));
		else if (strcmp(k, "total_duration") == 0)
			CHECK_NUM(what, US(r->total), json_number_value(v));
		else if (strcmp(k, "avg_duration") == 0)
			CHECK_NUM(what, US(r->total) / (double)r->calls, json_number_value(v));
		else if (strcmp(k, "min_duration") == 0)
			CHECK_NUM(what, US(r->min), json_number_value(v));
		else if (strcmp(k, "max_duration") == 0)
			CHECK_NUM(what, US(r->max), json_number_value(v));
		else if (strcmp(k, "avg_blocks_per_sm") == 0)
			CHECK_NUM(what, r->mean_blocks_per_sm, json_number_value(v));
		else if (strcmp(k, "avg_occupancy") == 0)
			CHECK_NUM(what, r->mean_occupancy, json_number_value(v));
		else {
			print_error("unknown kernel key %s\n", k);
			fail();
		}
	}
}

/* kernel_list_groupby_name_op rows given as a list: same length, same order */
static void check_kernel_list(const struct an_profile *p, json_t *list, int ordered)
{
	size_t i, j;
	json_t *v;

	assert_int_equal(json_array_size(list), p->kernels.by_properties.n);
	json_array_foreach(list, i, v)
	{
		const struct an_kernel_row *r = &p->kernels.by_properties.v[i];
		if (!ordered) {
			/* find by (name, op_name) */
			const char *n = json_string_value(json_object_get(v, "name"));
			const char *o = json_string_value(json_object_get(v, "op_name"));
			r = NULL;
			for (j = 0; j < p->kernels.by_properties.n; j++) {
				const struct an_kernel_row *x = &p->kernels.by_properties.v[j];
				if (strcmp(model_str(p->m, x->name), n) == 0 &&
				    strcmp(model_str(p->m, x->op_name), o) == 0)
					r = x;
			}
			assert_non_null(r);
		}
		check_kernel_prop(p, r, v);
	}
}

static void check_kernel_stat_row(const struct an_profile *p, const struct an_kernel_row *r,
				  json_t *exp)
{
	const char *k;
	json_t *v;

	json_object_foreach(exp, k, v)
	{
		double e = json_number_value(v);
		if (strcmp(k, "count") == 0)
			CHECK_NUM("count", (double)r->calls, e);
		else if (strcmp(k, "sum") == 0)
			CHECK_NUM("sum", US(r->total), e);
		else if (strcmp(k, "mean") == 0)
			CHECK_NUM("mean", US(r->total) / (double)r->calls, e);
		else if (strcmp(k, "min") == 0)
			CHECK_NUM("min", US(r->min), e);
		else if (strcmp(k, "max") == 0)
			CHECK_NUM("max", US(r->max), e);
		else if (strcmp(k, "blocks_per_sm") == 0)
			CHECK_NUM("blocks_per_sm", r->mean_blocks_per_sm, e);
		else if (strcmp(k, "occupancy") == 0)
			CHECK_NUM("occupancy", r->mean_occupancy, e);
		else {
			print_error("unknown kernel_stat key %s\n", k);
			fail();
		}
	}
	(void)p;
}

static const struct an_gpu *gpu_by_id(const struct an_profile *p, int id)
{
	size_t i;
	for (i = 0; i < p->gpus.n; i++)
		if (p->gpus.v[i].id == id)
			return &p->gpus.v[i];
	return NULL;
}

static int gpu_index_of(const char *key)
{
	const char *b = strchr(key, '[');
	return b ? atoi(b + 1) : 0;
}

static void check_memory(const struct an_profile *p, const char *dev, json_t *rows)
{
	const struct an_mem_device *d = NULL;
	const char *name;
	json_t *v;
	size_t i;

	for (i = 0; i < p->memory.devices.n; i++)
		if (strcmp(p->memory.devices.v[i].name, dev) == 0)
			d = &p->memory.devices.v[i];
	assert_non_null(d);
	assert_int_equal(d->ops.n, json_object_size(rows));
	json_object_foreach(rows, name, v)
	{
		const struct an_mem_op_row *r = NULL;
		for (i = 0; i < d->ops.n; i++)
			if (strcmp(model_str(p->m, d->ops.v[i].name), name) == 0)
				r = &d->ops.v[i];
		if (!r) {
			print_error("memory row %s/%s missing\n", dev, name);
			fail();
		}
		/* SelfIncreaseSize, SelfAllocationSize, SelfAllocationCount,
		 * IncreaseSize, AllocationSize, AllocationCount, Calls */
		assert_int_equal(r->self_size_increase, json_integer_value(json_array_get(v, 0)));
		assert_int_equal(r->self_alloc_size, json_integer_value(json_array_get(v, 1)));
		assert_int_equal(r->self_alloc_count, json_integer_value(json_array_get(v, 2)));
		assert_int_equal(r->size_increase, json_integer_value(json_array_get(v, 3)));
		assert_int_equal(r->alloc_size, json_integer_value(json_array_get(v, 4)));
		assert_int_equal(r->alloc_count, json_integer_value(json_array_get(v, 5)));
		assert_int_equal(r->calls, json_integer_value(json_array_get(v, 6)));
	}
}

/* Checks every key of a single-worker "expected" object. */
static void check_case_expected(const struct an_profile *p, json_t *exp)
{
	const char *k;
	json_t *v;

	json_object_foreach(exp, k, v)
	{
		if (strcmp(k, "has_runtime") == 0)
			assert_int_equal(p->overview.has_runtime, json_is_true(v));
		else if (strcmp(k, "has_kernel") == 0)
			assert_int_equal(p->overview.has_kernel, json_is_true(v));
		else if (strcmp(k, "has_memcpy_or_memset") == 0)
			assert_int_equal(p->overview.has_memcpy_or_memset, json_is_true(v));
		else if (strcmp(k, "has_communication") == 0)
			assert_int_equal(p->overview.has_communication, json_is_true(v));
		else if (strcmp(k, "len(steps_costs)") == 0)
			assert_int_equal(p->overview.steps.n, json_integer_value(v));
		else if (strncmp(k, "steps_costs[", 12) == 0 && strstr(k, "(ProfileRole order)")) {
			size_t i;
			json_t *x;
			json_array_foreach(v, i, x)
			{
				double got = i < AN_NROLES
						 ? US(p->overview.steps.v[0].cost[i])
						 : step_cost(&p->overview.steps.v[0], AN_NROLES);
				CHECK_NUM("step cost", got, json_number_value(x));
			}
		} else if (strncmp(k, "steps_costs[0].costs[", 21) == 0) {
			char role[32];
			sscanf(k + 21, "%31[^]]", role);
			CHECK_NUM(k, step_cost(&p->overview.steps.v[0], role_index(role)),
				  json_number_value(v));
		} else if (strncmp(k, "steps_costs[", 12) == 0)
			check_step(p, (size_t)atoi(k + 12), v);
		else if (strcmp(k, "avg_costs.Total") == 0)
			CHECK_NUM(k, US(p->overview.avg_total), json_number_value(v));
		else if (strcmp(k, "len(op_list_groupby_name)") == 0)
			assert_int_equal(p->ops.by_name.n, json_integer_value(v));
		else if (strcmp(k, "len(op_list_groupby_name_input)") == 0)
			assert_int_equal(p->ops.by_name_shape.n, json_integer_value(v));
		else if (strncmp(k, "op_agg", 6) == 0) {
			const char *name;
			json_t *o;
			json_object_foreach(v, name, o) check_op(p, name, o, 1);
		} else if (strcmp(k, "len(kernel_list_groupby_name_op)") == 0)
			assert_int_equal(p->kernels.by_properties.n, json_integer_value(v));
		else if (strcmp(k, "kernel_list_groupby_name_op[0]") == 0) {
			assert_true(p->kernels.by_properties.n > 0);
			check_kernel_prop(p, &p->kernels.by_properties.v[0], v);
		} else if (strcmp(k, "kernel_list_groupby_name_op (ordered)") == 0)
			check_kernel_list(p, v, 1);
		else if (strncmp(k, "kernel_list_groupby_name_op (", 29) == 0)
			check_kernel_list(p, v, 0);
		else if (strcmp(k, "kernel_stat.shape[0]") == 0)
			assert_int_equal(p->kernels.by_name.n, json_integer_value(v));
		else if (strcmp(k, "kernel_stat.iloc[0]") == 0) {
			assert_true(p->kernels.by_name.n > 0);
			check_kernel_stat_row(p, &p->kernels.by_name.v[0], v);
		} else if (strncmp(k, "kernel_stat (", 13) == 0) {
			const char *name;
			json_t *o;
			json_object_foreach(v, name, o)
			{
				const struct an_kernel_row *r = tu_find_kernel(
				    p, p->kernels.by_name.v, p->kernels.by_name.n, name);
				assert_non_null(r);
				check_kernel_stat_row(p, r, o);
			}
		} else if (strcmp(k, "kernels_by_name") == 0) {
			const char *name;
			json_t *o;
			json_object_foreach(v, name, o)
			{
				const struct an_kernel_row *r =
				    tu_find_kernel(p, p->kernels.by_properties.v,
						   p->kernels.by_properties.n, name);
				const struct an_op_row *op;
				assert_non_null(r);
				assert_string_equal(
				    model_str(p->m, r->op_name),
				    json_string_value(json_object_get(o, "op_name")));
				assert_int_equal(r->tensor_core,
						 json_is_true(json_object_get(o, "tc_used")));
				op = tu_find_op(p, p->ops.by_name.v, p->ops.by_name.n,
						model_str(p->m, r->op_name));
				assert_non_null(op);
				assert_int_equal(!!op->tc_eligible, json_is_true(json_object_get(
									o, "op_tc_eligible")));
			}
		} else if (strncmp(k, "tc_ratio[", 9) == 0) {
			const struct an_gpu *g = gpu_by_id(p, gpu_index_of(k));
			assert_non_null(g);
			CHECK_NUM(k, g->tensor_core_ratio, json_number_value(v));
		} else if (strcmp(k, "tc_eligible_ops_kernel_ratio") == 0)
			CHECK_NUM(k, p->tc_eligible_ops_kernel_ratio, json_number_value(v));
		else if (strcmp(k, "len(gpu_ids)") == 0)
			assert_int_equal(p->gpus.n, json_integer_value(v));
		else if (strncmp(k, "gpu_utilization[", 16) == 0) {
			const struct an_gpu *g = gpu_by_id(p, gpu_index_of(k));
			assert_non_null(g);
			CHECK_NUM(k, g->utilization, json_number_value(v));
		} else if (strncmp(k, "avg_approximated_sm_efficiency_per_device[", 42) == 0) {
			const struct an_gpu *g = gpu_by_id(p, gpu_index_of(k));
			assert_non_null(g);
			CHECK_NUM(k, g->sm_efficiency, json_number_value(v));
		} else if (strncmp(k, "avg_occupancy_per_device[", 25) == 0) {
			const struct an_gpu *g = gpu_by_id(p, gpu_index_of(k));
			assert_non_null(g);
			CHECK_NUM(k, g->achieved_occupancy, json_number_value(v));
		} else if (strncmp(k, "gpu_util_buckets[", 17) == 0) {
			const struct an_gpu *g = gpu_by_id(p, gpu_index_of(k));
			size_t i;
			json_t *x;
			assert_non_null(g);
			assert_int_equal(g->util_buckets.n, json_array_size(v));
			json_array_foreach(v, i, x)
			{
				CHECK_NUM("bucket ts", US(g->util_buckets.v[i].ts),
					  json_number_value(json_array_get(x, 0)));
				CHECK_NUM("bucket util", g->util_buckets.v[i].value,
					  json_number_value(json_array_get(x, 1)));
			}
		} else if (strncmp(k, "approximated_sm_efficiency_ranges[", 34) == 0) {
			/* tb_plugin's float residue emits a ~0 range where no kernel
			 * runs (see the case's note); nnscope computes exactly 0 and
			 * emits nothing there, so such expected ranges must be ~0. */
			/* the pass keeps only the buckets: the ranges on request */
			const struct an_gpu *kept = gpu_by_id(p, gpu_index_of(k));
			struct an_gpu ranges, *g = &ranges;
			size_t i, j = 0;
			json_t *x;
			assert_non_null(kept);
			assert_int_equal(kept->sm_ranges.n, 0);
			assert_int_equal(an_gpu_sm_ranges(p, kept->id, &ranges, NULL), NNS_OK);
			assert_true(ranges.sm_efficiency == kept->sm_efficiency);
			json_array_foreach(v, i, x)
			{
				double val = json_number_value(json_array_get(x, 2));
				if (fabs(val) < 1e-9)
					continue;
				assert_true(j < g->sm_ranges.n);
				CHECK_NUM("sm start", US(g->sm_ranges.v[j].start),
					  json_number_value(json_array_get(x, 0)));
				CHECK_NUM("sm end", US(g->sm_ranges.v[j].end),
					  json_number_value(json_array_get(x, 1)));
				CHECK_NUM("sm value", g->sm_ranges.v[j].value, val);
				j++;
			}
			assert_int_equal(j, g->sm_ranges.n);
			vec_free(&ranges.sm_ranges);
		} else if (strcmp(k, "approximated_sm_efficiency_ranges_note") == 0) {
			/* prose, nothing to check */
		} else if (strcmp(k, "len(memory_stats)") == 0)
			assert_int_equal(p->memory.devices.n, json_integer_value(v));
		else if (strcmp(k, "devices") == 0) {
			size_t i;
			json_t *x;
			json_array_foreach(v, i, x)
			{
				size_t d, found = 0;
				for (d = 0; d < p->memory.devices.n; d++)
					found |= strcmp(p->memory.devices.v[d].name,
							json_string_value(x)) == 0;
				assert_true(found);
			}
		} else if (strcmp(k, "columns") == 0) {
			/* the column order used by check_memory */
			assert_string_equal(json_string_value(json_array_get(v, 0)),
					    "SelfIncreaseSize");
			assert_string_equal(json_string_value(json_array_get(v, 6)), "Calls");
		} else if (strcmp(k, "CPU") == 0 || strncmp(k, "GPU", 3) == 0)
			check_memory(p, k, v);
		else if (strcmp(k, "len(comm_node_list)") == 0)
			assert_int_equal(p->comm_nodes.n, json_integer_value(v));
		else {
			print_error("unknown expected key '%s'\n", k);
			fail();
		}
	}
}

static int load_case(struct ctx *c, const char *file)
{
	char rel[256];
	json_t *in;

	memset(c, 0, sizeof(*c));
	snprintf(rel, sizeof(rel), "conformance/tbplugin/%s", file);
	c->doc = tu_load_shared_json(rel);
	if (!c->doc)
		return 1;
	in = json_object_get(c->doc, "input_trace_events");
	if (in) {
		c->nworkers = 1;
		assert_int_equal(tu_model_from_events(in, &c->m[0]), 0);
	} else {
		json_t *ins = json_object_get(c->doc, "inputs");
		c->nworkers = 2;
		assert_int_equal(
		    tu_model_from_events(json_object_get(ins, "json_content0"), &c->m[0]), 0);
		assert_int_equal(
		    tu_model_from_events(json_object_get(ins, "json_content1"), &c->m[1]), 0);
	}
	for (int w = 0; w < c->nworkers; w++) {
		struct nns_err err;
		assert_int_equal(an_profile_compute(&c->p[w], &c->m[w], &err), 0);
	}
	return 0;
}

static void free_case(struct ctx *c)
{
	for (int w = 0; w < c->nworkers; w++) {
		an_profile_release(&c->p[w]);
		model_release(&c->m[w]);
	}
	json_decref(c->doc);
}

/* Where nnscope differs from tb_plugin on purpose, the case's expected
 * value is replaced by nnscope's, worked out by hand, with the reason. */
static const struct deviation {
	const char *file, *key, *value;
} deviations[] = {
    /* 06: the kernel [150,240) has no launch in the trace (correlation 123
     * matches no runtime). tb_plugin takes it as work from before step 1
     * and starts step 1 at 240 (Total 140). nnscope moves the first step's
     * start only for device work whose launch ended before the step (issue
     * 18: a 100,298 us step came out as 135 us): step 1 = [100, 380), the
     * memcpy launched in it ending at 380. Kernel [150,240) = 90; Memcpy
     * [280,380) = 100; Runtime [250,255) = 5; CpuOp aten::to [200,260) less
     * the kernel [200,240) and the runtime = 15; Other = 280 - 210 = 70.
     * Step 2 is tb_plugin's: it starts at 380 either way. */
    {"06_steps_with_overlap.json", "steps_costs[0]",
     "{\"Kernel\": 90, \"Memcpy\": 100, \"Memset\": 0, \"Runtime\": 5, \"DataLoader\": 0, "
     "\"CpuOp\": 15, \"Other\": 70, \"Total\": 280}"},
};

static void apply_deviations(const char *file, json_t *expected)
{
	for (size_t i = 0; i < sizeof(deviations) / sizeof(*deviations); i++) {
		json_t *v;
		if (strcmp(deviations[i].file, file) != 0)
			continue;
		assert_non_null(json_object_get(expected, deviations[i].key));
		v = json_loads(deviations[i].value, 0, NULL);
		assert_non_null(v);
		json_object_set_new(expected, deviations[i].key, v);
	}
}

static void run_single(const char *file)
{
	struct ctx c;

	if (load_case(&c, file)) {
		skip();
		return;
	}
	apply_deviations(file, json_object_get(c.doc, "expected"));
	check_case_expected(&c.p[0], json_object_get(c.doc, "expected"));
	free_case(&c);
}

static void t01(void **s)
{
	(void)s;
	run_single("01_all_categories.json");
}
static void t02(void **s)
{
	(void)s;
	run_single("02_self_time.json");
}
static void t03(void **s)
{
	(void)s;
	run_single("03_external_id.json");
}
static void t04(void **s)
{
	(void)s;
	run_single("04_no_profilerstep.json");
}
static void t05(void **s)
{
	(void)s;
	run_single("05_steps_no_overlap.json");
}
static void t06(void **s)
{
	(void)s;
	run_single("06_steps_with_overlap.json");
}
static void t07(void **s)
{
	(void)s;
	run_single("07_gpu_utilization.json");
}
static void t08(void **s)
{
	(void)s;
	run_single("08_memory_view.json");
}
static void t09(void **s)
{
	(void)s;
	run_single("09_tensor_core.json");
}
static void t11(void **s)
{
	(void)s;
	run_single("11_group_by_kernel_columns.json");
}

/* 10: two workers, then the distributed pass */
static void t10(void **s)
{
	struct ctx c;
	struct an_dist d;
	struct nns_err err;
	const struct an_profile *ps[2];
	const char *names[2] = {"worker0", "worker1"};
	json_t *exp, *dist, *v;
	const char *k;

	(void)s;
	if (load_case(&c, "10_distributed_nccl.json")) {
		skip();
		return;
	}
	exp = json_object_get(c.doc, "expected");
	check_case_expected(&c.p[0], json_object_get(exp, "worker0"));
	check_case_expected(&c.p[1], json_object_get(exp, "worker1"));
	ps[0] = &c.p[0];
	ps[1] = &c.p[1];
	memset(&d, 0, sizeof(d));
	assert_int_equal(an_dist_compute(&d, ps, names, 2, &err), 0);
	dist = json_object_get(
	    exp, "distributed (RunLoader._process_distributed_profiles([w0, w1], span=0))");
	assert_non_null(dist);
	json_object_foreach(dist, k, v)
	{
		const char *w;
		json_t *x;
		json_object_foreach(v, w, x)
		{
			int wi = strcmp(w, "worker0") == 0 ? 0 : 1;
			const struct an_dist_worker *dw = &d.workers.v[wi];
			assert_string_equal(dw->name, w);
			if (strstr(k, "steps_to_overlap")) {
				/* tb_plugin truncates the per-step averages with int() */
				assert_int_equal((int64_t)(dw->computation / 1000),
						 json_integer_value(json_array_get(x, 0)));
				assert_int_equal((int64_t)(dw->overlap / 1000),
						 json_integer_value(json_array_get(x, 1)));
				assert_int_equal((int64_t)(dw->communication / 1000),
						 json_integer_value(json_array_get(x, 2)));
				assert_int_equal((int64_t)(dw->other / 1000),
						 json_integer_value(json_array_get(x, 3)));
			} else if (strstr(k, "steps_to_wait")) {
				assert_int_equal((int64_t)(dw->transfer / 1000),
						 json_integer_value(json_array_get(x, 0)));
				assert_int_equal((int64_t)(dw->synchronizing / 1000),
						 json_integer_value(json_array_get(x, 1)));
			} else if (strstr(k, "comm_ops")) {
				size_t i, j;
				json_t *row;
				json_array_foreach(x, i, row)
				{
					const struct an_dist_comm_row *r = NULL;
					const char *opn = json_string_value(json_array_get(row, 0));
					for (j = 0; j < d.comm_ops.n; j++)
						if (d.comm_ops.v[j].worker == (uint32_t)wi &&
						    strcmp(d.comm_ops.v[j].name, opn) == 0)
							r = &d.comm_ops.v[j];
					assert_non_null(r);
					/* name, calls, total bytes, avg bytes, total latency,
					 * avg latency, transfer, avg transfer */
					assert_int_equal(
					    r->calls, json_integer_value(json_array_get(row, 1)));
					assert_int_equal(
					    r->total_bytes,
					    json_integer_value(json_array_get(row, 2)));
					assert_int_equal(
					    r->total_bytes / r->calls,
					    json_integer_value(json_array_get(row, 3)));
					assert_int_equal(
					    r->total_latency / 1000,
					    json_integer_value(json_array_get(row, 4)));
					assert_int_equal(
					    r->total_latency / 1000 / r->calls,
					    json_integer_value(json_array_get(row, 5)));
					assert_int_equal(
					    r->transfer / 1000,
					    json_integer_value(json_array_get(row, 6)));
					assert_int_equal(
					    r->transfer / 1000 / r->calls,
					    json_integer_value(json_array_get(row, 7)));
				}
			} else {
				print_error("unknown distributed key %s\n", k);
				fail();
			}
		}
	}
	an_dist_release(&d);
	free_case(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(t01), cmocka_unit_test(t02), cmocka_unit_test(t03),
	    cmocka_unit_test(t04), cmocka_unit_test(t05), cmocka_unit_test(t06),
	    cmocka_unit_test(t07), cmocka_unit_test(t08), cmocka_unit_test(t09),
	    cmocka_unit_test(t10), cmocka_unit_test(t11),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
