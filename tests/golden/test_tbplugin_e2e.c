/*
 * test_tbplugin_e2e.c - the 10 upstream end-to-end payloads for the two
 * ResNet-50 sample traces (tb_plugin's result_check_file.txt, span 1 of
 * each run): step breakdown, average step, GPU summary, recommendations,
 * operator table and pies, kernel table and pie. The traces are imported
 * from ../shared/data/kineto with the real importer (gz, parallel parse).
 * tb_plugin prints rounded numbers (Python round(): half to even); the
 * comparisons round the same way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "importers/kineto.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sample {
	const char *run;
	const char *trace;
};

static const struct sample samples[2] = {
    {"resnet50_num_workers_0",
     "data/kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"},
    {"resnet50_num_workers_4",
     "data/kineto/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz"},
};

struct loaded {
	struct model m;
	struct an_profile p;
	json_t *overview, *operation, *operation_table, *kernel_table, *kernel;
};

static double us(int64_t ns)
{
	return (double)ns / 1000.0;
}

static json_t *payload(const char *run, const char *file)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "conformance/tbplugin/samples_e2e_upstream/%s/%s", run, file);
	return tu_load_shared_json(rel);
}

static int load(struct loaded *l, const struct sample *s)
{
	char path[4096];
	struct nns_err err;
	struct kineto_opts o = {.threads = 2};

	memset(l, 0, sizeof(*l));
	l->overview = payload(s->run, "overview.json");
	if (!l->overview)
		return 1;
	l->operation = payload(s->run, "operation.json");
	l->operation_table = payload(s->run, "operation_table.json");
	l->kernel_table = payload(s->run, "kernel_table.json");
	l->kernel = payload(s->run, "kernel.json");
	assert_non_null(l->operation);
	assert_non_null(l->operation_table);
	assert_non_null(l->kernel_table);
	assert_non_null(l->kernel);
	snprintf(path, sizeof(path), "%s/%s", tu_shared_dir(), s->trace);
	assert_int_equal(model_init(&l->m), 0);
	if (kineto_load_file(path, &l->m, &o, &err)) {
		print_error("%s\n", err.msg);
		fail();
	}
	assert_int_equal(an_profile_compute(&l->p, &l->m, &err), 0);
	return 0;
}

static void unload(struct loaded *l)
{
	an_profile_release(&l->p);
	model_release(&l->m);
	json_decref(l->overview);
	json_decref(l->operation);
	json_decref(l->operation_table);
	json_decref(l->kernel_table);
	json_decref(l->kernel);
}

static int role_by_column(const char *name)
{
	for (int r = 0; r < AN_NROLES; r++)
		if (strcmp(an_role_names[r], name) == 0)
			return r;
	return -1;
}

/* Python's round(x, nd): half-even at the decimal, good enough to compare. */
static double pyround(double x, int nd)
{
	double f = pow(10, nd);
	return rint(x * f) / f;
}

static void check_overview(struct loaded *l)
{
	json_t *steps = json_object_get(l->overview, "steps");
	json_t *cols = json_object_get(steps, "columns");
	json_t *rows = json_object_get(steps, "rows");
	json_t *perf, *gm, *x;
	const struct an_overview *o = &l->p.overview;
	size_t i, c;

	assert_int_equal(json_array_size(rows), o->steps.n);
	json_array_foreach(rows, i, x)
	{
		const struct an_step *s = &o->steps.v[i];
		assert_string_equal(json_string_value(json_array_get(x, 0)), s->name);
		for (c = 1; c < json_array_size(cols); c++) {
			json_t *col = json_array_get(cols, c);
			const char *name = json_string_value(json_object_get(col, "name"));
			int r;
			if (!name)
				continue; /* tooltip column */
			r = role_by_column(name);
			assert_true(r >= 0);
			assert_int_equal((int64_t)json_integer_value(json_array_get(x, c)),
					 (int64_t)llround(us(s->cost[r])));
		}
	}
	/* average step: value = round(avg), children per role */
	perf = json_array_get(json_object_get(l->overview, "performance"), 0);
	assert_int_equal(json_integer_value(json_object_get(perf, "value")),
			 (int64_t)rint(o->avg_total / 1000.0));
	json_array_foreach(json_object_get(perf, "children"), i, x)
	{
		int r = role_by_column(json_string_value(json_object_get(x, "name")));
		assert_true(r >= 0);
		assert_int_equal(json_integer_value(json_object_get(x, "value")),
				 (int64_t)rint(o->avg[r] / 1000.0));
		assert_true(fabs(json_number_value(json_object_get(x, "extra")) -
				 pyround(100.0 * o->avg[r] / o->avg_total, 2)) < 0.0051);
	}
	/* GPU summary */
	gm = json_object_get(json_object_get(l->overview, "gpu_metrics"), "data");
	assert_int_equal(l->p.gpus.n, 1);
	json_array_foreach(gm, i, x)
	{
		const char *t = json_string_value(json_object_get(x, "title"));
		const char *v = json_string_value(json_object_get(x, "value"));
		const struct an_gpu *g = &l->p.gpus.v[0];
		const struct model_device *d = model_device_by_id(&l->m, g->id);
		char buf[128];
		assert_non_null(d);
		if (strcmp(t, "Name") == 0) {
			assert_string_equal(v, model_str(&l->m, d->name));
		} else if (strcmp(t, "Memory") == 0) {
			snprintf(buf, sizeof(buf), "%.2f GB",
				 (double)d->total_mem / (1024.0 * 1024 * 1024));
			assert_string_equal(v, buf);
		} else if (strcmp(t, "Compute Capability") == 0) {
			snprintf(buf, sizeof(buf), "%d.%d", d->major, d->minor);
			assert_string_equal(v, buf);
		} else if (strcmp(t, "GPU Utilization") == 0) {
			assert_true(fabs(atof(v) - 100 * g->utilization) < 0.0051);
		} else if (strcmp(t, "Est. SM Efficiency") == 0) {
			assert_true(fabs(atof(v) - 100 * g->sm_efficiency) < 0.0051);
		} else if (strcmp(t, "Est. Achieved Occupancy") == 0) {
			assert_true(fabs(atof(v) - g->achieved_occupancy) < 0.0051);
		} else if (strcmp(t, "Kernel Time using Tensor Cores") == 0) {
			assert_true(fabs(atof(v) - 100 * g->tensor_core_ratio) < 0.051);
		}
	}
}

/* Each <li> of the expected HTML, tags stripped, up to " You could": our
 * text must start with exactly that sentence (numbers included). */
static void check_recommendations(struct loaded *l)
{
	const char *html = json_string_value(json_object_get(l->overview, "recommendations"));
	const char *p = html;
	size_t n = 0;

	assert_non_null(html);
	while ((p = strstr(p, "<li>")) != NULL) {
		char text[2048];
		size_t o = 0;
		int in_tag = 0;
		const char *q = p + 4, *end = strstr(q, "</li>");
		char *cut;
		assert_non_null(end);
		for (; q < end && o + 1 < sizeof(text); q++) {
			if (*q == '<')
				in_tag = 1;
			else if (*q == '>')
				in_tag = 0;
			else if (!in_tag)
				text[o++] = *q;
		}
		text[o] = '\0';
		cut = strstr(text, " You could");
		if (cut)
			*cut = '\0';
		assert_true(n < l->p.advice.items.n);
		if (strncmp(l->p.advice.items.v[n].text, text, strlen(text)) != 0) {
			print_error("advice %zu: expected '%s', got '%s'\n", n, text,
				    l->p.advice.items.v[n].text);
			fail();
		}
		n++;
		p = end;
	}
	assert_int_equal(n, l->p.advice.items.n);
}

static void check_operation_table(struct loaded *l)
{
	json_t *data = json_object_get(l->operation_table, "data"), *x;
	size_t i;

	assert_int_equal(json_array_size(data), l->p.ops.by_name.n);
	json_array_foreach(data, i, x)
	{
		const char *name = json_string_value(json_object_get(x, "name"));
		const struct an_op_row *r =
		    tu_find_op(&l->p, l->p.ops.by_name.v, l->p.ops.by_name.n, name);
		double tcs, tct;
		if (!r) {
			print_error("operator %s missing\n", name);
			fail();
		}
		assert_int_equal(json_integer_value(json_object_get(x, "calls")), r->calls);
		assert_int_equal(json_integer_value(json_object_get(x, "device_self_duration")),
				 llround(us(r->dev_self)));
		assert_int_equal(json_integer_value(json_object_get(x, "device_total_duration")),
				 llround(us(r->dev_total)));
		assert_int_equal(json_integer_value(json_object_get(x, "host_self_duration")),
				 llround(us(r->host_self)));
		assert_int_equal(json_integer_value(json_object_get(x, "host_total_duration")),
				 llround(us(r->host_total)));
		assert_string_equal(json_string_value(json_object_get(x, "tc_eligible")),
				    r->tc_eligible ? "Yes" : "No");
		tcs = r->dev_self ? (double)r->tc_self / (double)r->dev_self : 0;
		tct = r->dev_total ? (double)r->tc_total / (double)r->dev_total : 0;
		assert_true(fabs(json_number_value(json_object_get(x, "tc_self_ratio")) - tcs) <
			    0.0051);
		assert_true(fabs(json_number_value(json_object_get(x, "tc_total_ratio")) - tct) <
			    0.0051);
		assert_int_equal(json_is_true(json_object_get(x, "has_call_stack")),
				 r->has_call_stack);
	}
	/* the operator pies: every op with a positive value, by value */
	{
		static const char *const pies[4] = {"device_total_time", "device_self_time",
						    "host_total_time", "host_self_time"};
		for (int k = 0; k < 4; k++) {
			json_t *rows =
			    json_object_get(json_object_get(l->operation, pies[k]), "rows");
			size_t positive = 0, j;
			for (j = 0; j < l->p.ops.by_name.n; j++) {
				const struct an_op_row *r = &l->p.ops.by_name.v[j];
				int64_t v = k == 0   ? r->dev_total
					    : k == 1 ? r->dev_self
					    : k == 2 ? r->host_total
						     : r->host_self;
				positive += k < 2 ? v > 0 : 1;
			}
			assert_int_equal(json_array_size(rows), positive);
			json_array_foreach(rows, i, x)
			{
				const struct an_op_row *r =
				    tu_find_op(&l->p, l->p.ops.by_name.v, l->p.ops.by_name.n,
					       json_string_value(json_array_get(x, 0)));
				int64_t v;
				assert_non_null(r);
				v = k == 0   ? r->dev_total
				    : k == 1 ? r->dev_self
				    : k == 2 ? r->host_total
					     : r->host_self;
				assert_int_equal(json_integer_value(json_array_get(x, 1)),
						 llround(us(v)));
			}
		}
	}
}

static void check_kernels(struct loaded *l)
{
	json_t *rows = json_object_get(json_object_get(l->kernel_table, "data"), "rows"), *x;
	json_t *pie = json_object_get(json_object_get(l->kernel, "total"), "rows");
	size_t i;

	assert_int_equal(json_array_size(rows), l->p.kernels.by_name.n);
	json_array_foreach(rows, i, x)
	{
		/* Name, TC used, Calls, Total, Mean, Max, Min, Blocks/SM, Occupancy.
		 * Both tables are sorted by total, descending; rows with equal
		 * totals may come in any order (pandas sorts unstably), so the
		 * row is found by name and the totals compared by position. */
		const struct an_kernel_row *r =
		    tu_find_kernel(&l->p, l->p.kernels.by_name.v, l->p.kernels.by_name.n,
				   json_string_value(json_array_get(x, 0)));
		assert_non_null(r);
		assert_int_equal(json_integer_value(json_array_get(x, 3)),
				 llround(us(l->p.kernels.by_name.v[i].total)));
		assert_string_equal(json_string_value(json_array_get(x, 1)),
				    r->tensor_core ? "Yes" : "No");
		assert_int_equal(json_integer_value(json_array_get(x, 2)), r->calls);
		assert_int_equal(json_integer_value(json_array_get(x, 3)), llround(us(r->total)));
		assert_int_equal(json_integer_value(json_array_get(x, 4)),
				 (int64_t)rint(us(r->total) / (double)r->calls));
		assert_int_equal(json_integer_value(json_array_get(x, 5)), llround(us(r->max)));
		assert_int_equal(json_integer_value(json_array_get(x, 6)), llround(us(r->min)));
		assert_true(fabs(json_number_value(json_array_get(x, 7)) - r->mean_blocks_per_sm) <
			    0.0051);
		assert_true(fabs(json_number_value(json_array_get(x, 8)) - r->mean_occupancy) <
			    0.0051);
	}
	assert_int_equal(json_array_size(pie), l->p.kernels.by_name.n);
	json_array_foreach(pie, i, x)
	{
		const struct an_kernel_row *r =
		    tu_find_kernel(&l->p, l->p.kernels.by_name.v, l->p.kernels.by_name.n,
				   json_string_value(json_array_get(x, 0)));
		assert_non_null(r);
		assert_int_equal(json_integer_value(json_array_get(x, 1)), llround(us(r->total)));
	}
}

static void run_sample(int i)
{
	struct loaded l;

	if (load(&l, &samples[i])) {
		skip();
		return;
	}
	check_overview(&l);
	check_recommendations(&l);
	check_operation_table(&l);
	check_kernels(&l);
	unload(&l);
}

static void nw0(void **s)
{
	(void)s;
	run_sample(0);
}
static void nw4(void **s)
{
	(void)s;
	run_sample(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(nw0), cmocka_unit_test(nw4)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
