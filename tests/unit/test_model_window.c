/*
 * test_model_window.c - model_keep_window(), what `analyse --steps` runs
 * on: host events overlapping the window stay, device events follow their
 * launch (even when they run after the window), launch-less device events
 * and rows stay only inside it; the model is finalized again (launch links
 * rebuilt over the new indices).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "model/model.h"

#include <string.h>

static void ev(struct model *m, int kind, const char *name, int64_t ts, int64_t dur, int64_t corr)
{
	struct model_event e;
	int dev = model_kind_is_device(kind);

	model_event_init(&e);
	e.kind = (uint8_t)kind;
	e.name = model_intern(m, name, strlen(name));
	e.thread = model_thread(m, model_intern(m, dev ? "0" : "1", 1),
				model_intern(m, dev ? "7" : "1", 1));
	e.ts = ts;
	e.dur = dur;
	assert_int_equal(model_id_enc(m, corr, &e.corr_enc), 0);
	if (dev)
		e.device = 0;
	assert_true(model_add_event(m, &e) >= 0);
}

static int has(const struct model *m, const char *name)
{
	size_t i;
	for (i = 0; i < m->events.n; i++)
		if (!strcmp(model_str(m, m->events.v[i].name), name))
			return 1;
	return 0;
}

/* window [100, 200]:
 *   op_before [0,50)      dropped      op_in [120,150)  kept
 *   op_across [90,110)    kept (overlaps)
 *   launch_in [130,131) corr 1 -> kern_late [500,520): kept with its launch
 *   launch_out [10,11) corr 2 -> kern_early [150,160): dropped with its launch
 *   kern_orphan_in [180,190) no corr: kept; kern_orphan_out [300,310): dropped
 *   mem records at 50 (dropped) and 150 (kept) */
static void test_window(void **st)
{
	struct model m;
	struct nns_err err;
	struct model_mem r;
	size_t i;
	int checked = 0;
	(void)st;

	assert_int_equal(model_init(&m), NNS_OK);
	ev(&m, MK_CPU_OP, "op_before", 0, 50, MODEL_NONE);
	ev(&m, MK_CPU_OP, "op_across", 90, 20, MODEL_NONE);
	ev(&m, MK_CPU_OP, "op_in", 120, 30, MODEL_NONE);
	ev(&m, MK_RUNTIME, "launch_in", 130, 1, 1);
	ev(&m, MK_RUNTIME, "launch_out", 10, 1, 2);
	ev(&m, MK_KERNEL, "kern_late", 500, 20, 1);
	ev(&m, MK_KERNEL, "kern_early", 150, 10, 2);
	ev(&m, MK_KERNEL, "kern_orphan_in", 180, 10, MODEL_NONE);
	ev(&m, MK_KERNEL, "kern_orphan_out", 300, 10, MODEL_NONE);
	memset(&r, 0, sizeof(r));
	r.ts = 50;
	assert_int_equal(model_add_mem(&m, &r), 0);
	r.ts = 150;
	assert_int_equal(model_add_mem(&m, &r), 0);
	assert_int_equal(model_finalize(&m, &err), NNS_OK);

	assert_int_equal(model_keep_window(&m, 100, 200, &err), NNS_OK);
	assert_int_equal(m.events.n, 5);
	assert_true(has(&m, "op_across") && has(&m, "op_in") && has(&m, "launch_in") &&
		    has(&m, "kern_late") && has(&m, "kern_orphan_in"));
	assert_int_equal(m.mems.n, 1);
	assert_int_equal(m.mems.v[0].ts, 150);
	/* refinalized: the late kernel's launch link points at launch_in */
	assert_int_equal(m.finalized, 1);
	for (i = 0; i < m.events.n; i++) {
		if (strcmp(model_str(&m, m.events.v[i].name), "kern_late"))
			continue;
		assert_int_not_equal(model_launch_of(&m, i), MODEL_NOIDX);
		assert_string_equal(model_str(&m, m.events.v[model_launch_of(&m, i)].name),
				    "launch_in");
		checked = 1;
	}
	assert_true(checked);
	assert_int_equal(m.min_ts, 90);
	assert_int_equal(m.max_end, 520);
	model_release(&m);
}

static void test_bad_args(void **st)
{
	struct model m;
	struct nns_err err;
	(void)st;

	assert_int_equal(model_init(&m), NNS_OK);
	ev(&m, MK_CPU_OP, "op", 0, 50, MODEL_NONE);
	/* not finalized */
	assert_int_equal(model_keep_window(&m, 0, 10, &err), NNS_EINVAL);
	assert_int_equal(model_finalize(&m, &err), NNS_OK);
	assert_int_equal(model_keep_window(&m, 10, 5, &err), NNS_EINVAL);
	assert_int_equal(m.events.n, 1); /* untouched */
	model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_window),
	    cmocka_unit_test(test_bad_args),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
