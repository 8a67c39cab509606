/*
 * test_memory.c - unit tests of the memory view (src/analysis/memory.c):
 * attribution of [memory] records to operators, per-op statistics, device
 * naming and order, allocation/free pairing, the down-sampled curve, and
 * tb_plugin's test_memory_view conformance case (08_memory_view.json).
 */
#include "analysis/analysis.h"
#include "testutil.h"
#include "mbuild.h"

#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

static void compute(struct an_profile *p, struct model *m)
{
	static const mb_pass passes[] = {an_steps_compute, an_breakdown_compute, an_optree_compute,
					 an_memory_compute, NULL};
	mb_compute(p, m, 1, passes);
}

static const struct an_mem_device *dev(const struct an_profile *p, const char *name)
{
	size_t i;
	for (i = 0; i < p->memory.devices.n; i++)
		if (strcmp(p->memory.devices.v[i].name, name) == 0)
			return &p->memory.devices.v[i];
	return NULL;
}

static const struct an_mem_op_row *row(const struct an_profile *p, const struct an_mem_device *d,
				       const char *name)
{
	size_t i;
	for (i = 0; d && i < d->ops.n; i++)
		if (strcmp(model_str(p->m, d->ops.v[i].name), name) == 0)
			return &d->ops.v[i];
	return NULL;
}

/* values in tb_plugin's column order: self inc, self alloc size, self alloc
 * count, inc, alloc size, alloc count, calls */
static void check_row(const struct an_mem_op_row *r, const int64_t v[7])
{
	assert_non_null(r);
	assert_int_equal(r->self_size_increase, v[0]);
	assert_int_equal(r->self_alloc_size, v[1]);
	assert_int_equal(r->self_alloc_count, v[2]);
	assert_int_equal(r->size_increase, v[3]);
	assert_int_equal(r->alloc_size, v[4]);
	assert_int_equal(r->alloc_count, v[5]);
	assert_int_equal(r->calls, v[6]);
}

/* ---- hand-made cases -------------------------------------------------------------- */

static void test_attribution_and_totals(void **state)
{
	struct model m;
	struct an_profile p;
	uint32_t t, t2;
	char label[128];
	const struct an_mem_device *cpu, *gpu;

	(void)state;
	model_init(&m);
	t = mb_thr(&m, "1", "10");
	t2 = mb_thr(&m, "1", "20");
	mb_ev(&m, t, MK_USER_ANNOTATION, "ProfilerStep#1", 0, 1000, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, t, MK_CPU_OP, "A", 100, 100, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, t, MK_CPU_OP, "B", 110, 40, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, t, MK_CPU_OP, "aten::empty", 120, 10, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, t, MK_CPU_OP, "A", 300, 50, MODEL_NONE, MODEL_NONE); /* second call, no memory */
	mb_ev(&m, t2, MK_CPU_OP, "C", 100, 10, MODEL_NONE, MODEL_NONE);

	mb_mem(&m, t, 50, 0, -1, 0x10, 7);    /* in the step only: dropped */
	mb_mem(&m, t, 105, 0, -1, 0x20, 100); /* A, CPU */
	mb_mem(&m, t, 125, 1, 0, 0x30, 40);   /* aten::empty, GPU0 */
	mb_mem(&m, t, 140, 1, 0, 0x30, -40);  /* B frees it */
	mb_mem(&m, t, 150, 1, 0, 0x40, 5);    /* ts == B's end: A */
	mb_mem(&m, t, 200, 1, 0, 0x50, 9);    /* ts == A's end: step, dropped */
	mb_mem(&m, t, 105, 2, 0, 0x60, 9);    /* other device type: ignored */
	mb_mem(&m, t2, 101, 1, 0, 0x70, 3);   /* C on thread 20 */
	compute(&p, &m);

	assert_int_equal(p.memory.devices.n, 2);
	cpu = &p.memory.devices.v[0];
	gpu = &p.memory.devices.v[1];
	assert_string_equal(cpu->name, "CPU");
	assert_string_equal(gpu->name, "GPU0");
	assert_int_equal(cpu->ops.n, 1);
	check_row(row(&p, cpu, "A"), (const int64_t[]){100, 100, 1, 100, 100, 1, 2});
	assert_int_equal(gpu->ops.n, 4);
	check_row(row(&p, gpu, "aten::empty"), (const int64_t[]){40, 40, 1, 40, 40, 1, 1});
	check_row(row(&p, gpu, "B"), (const int64_t[]){-40, 0, 0, 0, 40, 1, 1});
	check_row(row(&p, gpu, "A"), (const int64_t[]){5, 5, 1, 5, 45, 2, 2});
	check_row(row(&p, gpu, "C"), (const int64_t[]){3, 3, 1, 3, 3, 1, 1});
	/* rows sorted by name */
	assert_string_equal(model_str(&m, gpu->ops.v[0].name), "A");
	assert_string_equal(model_str(&m, gpu->ops.v[3].name), "aten::empty");

	/* events on GPU0 in allocation order; 0x30 paired, labelled by caller */
	assert_int_equal(gpu->events.n, 4);
	assert_int_equal(gpu->events.v[0].addr, 0x70);
	assert_int_equal(gpu->events.v[1].addr, 0x30);
	assert_int_equal(gpu->events.v[1].size, 40);
	assert_int_equal(gpu->events.v[1].alloc_ts, 125);
	assert_int_equal(gpu->events.v[1].free_ts, 140);
	an_mem_event_label(&m, &gpu->events.v[1], label, sizeof(label));
	assert_string_equal(label, "B (aten::empty)");
	assert_int_equal(gpu->events.v[2].free_ts, MODEL_NONE);
	an_mem_event_label(&m, &gpu->events.v[2], label, sizeof(label));
	assert_string_equal(label, "A");
	an_mem_event_label(&m, &gpu->events.v[3], label, sizeof(label));
	assert_string_equal(label, "<unknown>");
	assert_int_equal(gpu->peak_allocated, -1);
	assert_int_equal(gpu->curve.n, 0);

	an_profile_release(&p);
	model_release(&m);
}

/* Hostile byte counts (found by fuzz_nnst): sums saturate at INT64_MAX
 * instead of overflowing. */
static void test_huge_sizes_saturate(void **state)
{
	struct model m;
	struct an_profile p;
	uint32_t t;

	(void)state;
	model_init(&m);
	t = mb_thr(&m, "1", "10");
	mb_ev(&m, t, MK_USER_ANNOTATION, "ProfilerStep#1", 0, 1000, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, t, MK_CPU_OP, "A", 100, 100, MODEL_NONE, MODEL_NONE);
	mb_ev(&m, t, MK_CPU_OP, "B", 110, 40, MODEL_NONE, MODEL_NONE);
	mb_mem(&m, t, 105, 1, 0, 0x10, INT64_MAX - 5); /* A */
	mb_mem(&m, t, 120, 1, 0, 0x20, INT64_MAX - 5); /* B, inside A */
	compute(&p, &m);
	assert_int_equal(p.memory.devices.n, 1);
	check_row(row(&p, &p.memory.devices.v[0], "A"),
		  (const int64_t[]){INT64_MAX - 5, INT64_MAX - 5, 1, INT64_MAX, INT64_MAX, 2, 1});
	an_profile_release(&p);
	model_release(&m);
}

static void test_pairing(void **state)
{
	struct model m;
	struct an_profile p;
	uint32_t t;
	const struct an_mem_device *cpu, *gpu;

	(void)state;
	model_init(&m);
	t = mb_thr(&m, "1", "1");
	mb_mem(&m, t, 10, 1, 0, 0xa, 8); /* never freed: its address is reused */
	mb_mem(&m, t, 20, 1, 0, 0xa, 16);
	mb_mem(&m, t, 30, 1, 0, 0xa, -16);
	mb_mem(&m, t, 40, 1, 0, 0xb, -4);  /* free without allocation */
	mb_mem(&m, t, 50, 0, -1, 0xc, 32); /* CPU alloc ... */
	mb_mem(&m, t, 60, 1, 0, 0xc, -32); /* ... not freed by a GPU record */
	mb_mem(&m, t, 70, 1, 0, 0xd, 0);   /* zero bytes: ignored */
	compute(&p, &m);

	cpu = dev(&p, "CPU");
	gpu = dev(&p, "GPU0");
	assert_non_null(cpu);
	assert_non_null(gpu);
	assert_int_equal(cpu->events.n, 1);
	assert_int_equal(cpu->events.v[0].free_ts, MODEL_NONE);
	assert_int_equal(gpu->events.n, 4);
	assert_int_equal(gpu->events.v[0].alloc_ts, 10);
	assert_int_equal(gpu->events.v[0].free_ts, MODEL_NONE);
	assert_int_equal(gpu->events.v[1].alloc_ts, 20);
	assert_int_equal(gpu->events.v[1].free_ts, 30);
	assert_int_equal(gpu->events.v[2].alloc_ts, MODEL_NONE);
	assert_int_equal(gpu->events.v[2].free_ts, 40);
	assert_int_equal(gpu->events.v[2].size, 4);
	assert_int_equal(gpu->events.v[3].alloc_ts, MODEL_NONE);
	assert_int_equal(gpu->events.v[3].free_ts, 60);
	/* no op tree at all: no rows */
	assert_int_equal(gpu->ops.n, 0);
	an_profile_release(&p);
	model_release(&m);
}

/* An old (PyTorch 1.8) trace: [memory] records without "Addr". Nothing can
 * be paired (events empty) but the device has 3 records: 2 allocations of
 * 512 and 256 bytes, 1 free of 512 -> records 3, which the report prints
 * (it printed events.n, 0, above the operators' allocation table). */
static const char OLD_MEM[] =
    "{\"schemaVersion\":1,\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"pid\":1,\"tid\":1,\"ts\":0,"
    "\"dur\":100,\"args\":{}},"
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":10,"
    "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":512}},"
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":20,"
    "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":256}},"
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":30,"
    "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Bytes\":-512}}]}";

static void test_records_without_addr(void **state)
{
	struct model m;
	struct an_profile p;
	const struct an_mem_device *g;

	(void)state;
	assert_int_equal(tu_kineto_profile(OLD_MEM, &m, &p), 0);
	assert_non_null(g = dev(&p, "GPU0"));
	assert_int_equal(g->events.n, 0);
	assert_int_equal(g->records, 3);
	an_profile_release(&p);
	model_release(&m);
}

static void test_device_order(void **state)
{
	struct model m;
	struct an_profile p;
	uint32_t t;

	(void)state;
	model_init(&m);
	t = mb_thr(&m, "1", "1");
	mb_mem(&m, t, 1, 1, 10, 1, 1);
	mb_mem(&m, t, 2, 1, 2, 1, 1);
	mb_mem(&m, t, 3, 0, -1, 1, 1);
	mb_mem(&m, t, 4, 1, 10, 1, -1);
	compute(&p, &m);
	assert_int_equal(p.memory.devices.n, 3);
	assert_string_equal(p.memory.devices.v[0].name, "CPU");
	assert_string_equal(p.memory.devices.v[1].name, "GPU2");
	assert_string_equal(p.memory.devices.v[2].name, "GPU10");
	assert_int_equal(p.memory.devices.v[2].events.n, 1);
	assert_int_equal(p.memory.devices.v[2].events.v[0].free_ts, 4);
	an_profile_release(&p);
	model_release(&m);
}

static void test_curve_keeps_peak(void **state)
{
	struct model m;
	struct an_profile p;
	uint32_t t;
	const int n = 50000, spike = 31337;
	const struct an_mem_device *gpu;
	int i, found = 0;

	(void)state;
	model_init(&m);
	t = mb_thr(&m, "1", "1");
	for (i = 0; i < n; i++) {
		struct model_mem r;
		memset(&r, 0, sizeof(r));
		r.ts = 1000 + i * 10;
		r.thread = t;
		r.device_type = 1;
		r.addr = i;
		r.bytes = 1;
		r.total_allocated = (i % 100) * 1000 + (i == spike ? 10000000 : 0);
		r.total_reserved = 2000000;
		r.flags =
		    MODEL_MEM_HAS_ADDR | MODEL_MEM_HAS_TOTAL_ALLOC | MODEL_MEM_HAS_TOTAL_RESERVED;
		assert_int_equal(model_add_mem(&m, &r), 0);
	}
	compute(&p, &m);
	gpu = dev(&p, "GPU0");
	assert_non_null(gpu);
	assert_true(gpu->curve.n <= 10240);
	assert_true(gpu->curve.n > 10000);
	assert_int_equal(gpu->peak_allocated, (spike % 100) * 1000 + 10000000);
	assert_int_equal(gpu->curve.v[0].ts, 1000);
	assert_int_equal(gpu->curve.v[gpu->curve.n - 1].ts, 1000 + (n - 1) * 10);
	for (i = 0; i < (int)gpu->curve.n; i++) {
		if (i)
			assert_true(gpu->curve.v[i].ts > gpu->curve.v[i - 1].ts);
		if (gpu->curve.v[i].allocated == gpu->peak_allocated)
			found = 1;
	}
	assert_true(found);
	an_profile_release(&p);
	model_release(&m);
}

/* ---- tb_plugin conformance: test_memory_view ------------------------------------- */

static void check_device_rows(const struct an_profile *p, const json_t *exp, const char *devname)
{
	const struct an_mem_device *d = dev(p, devname);
	const json_t *rows = json_object_get(exp, devname);
	const char *name;
	json_t *v;

	assert_non_null(d);
	assert_non_null(rows);
	json_object_foreach((json_t *)rows, name, v)
	{
		int64_t want[7];
		size_t k;
		for (k = 0; k < 7; k++)
			want[k] = json_integer_value(json_array_get(v, k));
		check_row(row(p, d, name), want);
	}
}

static void test_conformance_08(void **state)
{
	json_t *j = tu_load_shared_json("conformance/tbplugin/08_memory_view.json"), *exp, *all;
	struct model m;
	struct an_profile p;
	size_t i, ndev = 0;

	(void)state;
	if (!j) {
		skip();
		return;
	}
	/* through the real Kineto importer */
	assert_int_equal(tu_model_from_events(json_object_get(j, "input_trace_events"), &m), 0);
	memset(&p, 0, sizeof(p));
	p.m = &m;
	{
		struct nns_err err;
		assert_int_equal(an_steps_compute(&p, &err), 0);
		assert_int_equal(an_breakdown_compute(&p, &err), 0);
		assert_int_equal(an_optree_compute(&p, &err), 0);
		assert_int_equal(an_memory_compute(&p, &err), 0);
	}
	exp = json_object_get(j, "expected");
	/* len(memory_stats) counts devices with rows */
	for (i = 0; i < p.memory.devices.n; i++)
		ndev += p.memory.devices.v[i].ops.n > 0;
	assert_int_equal(ndev, json_integer_value(json_object_get(exp, "len(memory_stats)")));
	check_device_rows(&p, exp, "CPU");
	check_device_rows(&p, exp, "GPU0");
	/* the reference computed no other rows */
	all = json_object_get(
	    json_object_get(json_object_get(j, "reference_computed_not_asserted"), "values"),
	    "memory_stats_all_rows");
	assert_int_equal(dev(&p, "CPU")->ops.n, json_object_size(json_object_get(all, "CPU")));
	assert_int_equal(dev(&p, "GPU0")->ops.n, json_object_size(json_object_get(all, "GPU0")));
	/* events without totals: no curve, no peak */
	assert_int_equal(dev(&p, "GPU0")->curve.n, 0);
	assert_int_equal(dev(&p, "GPU0")->peak_allocated, -1);
	an_profile_release(&p);
	model_release(&m);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_attribution_and_totals), cmocka_unit_test(test_pairing),
	    cmocka_unit_test(test_huge_sizes_saturate),	   cmocka_unit_test(test_device_order),
	    cmocka_unit_test(test_records_without_addr),   cmocka_unit_test(test_curve_keeps_peak),
	    cmocka_unit_test(test_conformance_08),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
