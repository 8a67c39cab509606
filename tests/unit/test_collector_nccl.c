/*
 * test_collector_nccl.c - the NCCL profiler plugin (src/collector/
 * nccl_prof.c, nccl_prof_abi.c) called in-process through the exported
 * ncclProfiler_v5 struct, the way NCCL calls it (owner: the collector;
 * tests/e2e/nccl_plugin.sh covers the dlopen path and every version):
 * threads on their own communicators start and stop tasks and their
 * kernel-channel events concurrently and every task becomes exactly one
 * COLL record in the trace; a full pool evicts the stopped task that has
 * waited longest, whose late kernel events are then refused; tasks whose
 * kernel events never come are emitted with their enqueue window when a
 * later task's begin (or finalize); nothing is recorded while no profiler
 * collects, nor when its profile_communication option is off (init then
 * answers activation mask 0).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "collector/collector.h"
#include "collector/nccl_prof.h"
#include "collector/nccl_profiler_abi.h"
#include "test_collector_util.h"

#include <pthread.h>
#include <string.h>

extern struct nccl_profiler_v5 ncclProfiler_v5;

static char dir[64];

static int setup(void **state)
{
	(void)state;
	tt_tmpdir(dir, sizeof(dir));
	return dir[0] ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	tt_rmrf(dir);
	return 0;
}

static nns_profiler *profiler_comm(int comm)
{
	struct nns_options o;
	nns_profiler *p = NULL;

	nns_options_init(&o);
	snprintf(o.output_path, sizeof(o.output_path), "%s", dir);
	o.cpu_sampling_interval_ms = 0;
	o.start = 1;
	o.profile_communication = comm;
	assert_int_equal(nns_create(&p, &o), 0);
	return p;
}

static nns_profiler *profiler(void)
{
	return profiler_comm(1);
}

/* COLL records in the one trace of dir; *exec gets those timed by kernel
 * events (stream 1). */
static size_t coll_records(size_t *exec)
{
	char paths[2][512], err[256];
	struct nnst_reader *r;
	const uint8_t *p;
	uint32_t type, len;
	size_t n = 0;

	*exec = 0;
	assert_int_equal(tt_list(dir, paths, 2), 1);
	assert_int_equal(nnst_reader_open(&r, paths[0], err, sizeof(err)), 0);
	while (nnst_reader_next(r, &type, &p, &len, err, sizeof(err)) == 1) {
		if (type != NNST_CHUNK_GPU)
			continue;
		for (uint32_t o = 0; o + sizeof(struct nnst_gpu) <= len;
		     o += sizeof(struct nnst_gpu)) {
			struct nnst_gpu g;

			memcpy(&g, p + o, sizeof(g));
			if (g.type == NNST_GPU_COLL) {
				n++;
				*exec += g.stream == 1;
				assert_true(g.end >= g.start);
				assert_int_equal(g.flags, NNST_GPUF_HOSTCLOCK);
			}
		}
	}
	nnst_reader_close(r);
	return n;
}

static void *task(void *ctx, uint64_t seq, uint8_t nch)
{
	struct nccl_prof_descr_v5 d;
	void *h = NULL;

	memset(&d, 0, sizeof(d));
	d.type = NCCL_PROF_COLL;
	d.rank = 0;
	d.coll.seqNumber = seq;
	d.coll.func = "AllReduce";
	d.coll.count = 16;
	d.coll.datatype = "ncclFloat32";
	d.coll.nChannels = nch;
	d.coll.algo = "RING";
	d.coll.proto = "SIMPLE";
	ncclProfiler_v5.startEvent(ctx, &h, &d);
	return h;
}

static void *kernel(void *ctx, void *parent)
{
	struct nccl_prof_descr_v5 d;
	void *h = NULL;

	memset(&d, 0, sizeof(d));
	d.type = NCCL_PROF_KERNEL_CH;
	d.parentObj = parent;
	ncclProfiler_v5.startEvent(ctx, &h, &d);
	return h;
}

#define THREADS 4
#define TASKS 3000

static void *hammer(void *arg)
{
	void *ctx = NULL, *t[4], *k[4][2];
	int mask = 0;

	(void)arg;
	if (ncclProfiler_v5.init(&ctx, (uint64_t)(uintptr_t)&ctx, &mask, "t", 1, 2, 0, NULL))
		return NULL;
	for (int i = 0; i < TASKS; i += 4) { /* 4 tasks in flight, NCCL's order */
		for (int j = 0; j < 4; j++)
			t[j] = task(ctx, (uint64_t)(i + j), 2);
		for (int j = 0; j < 4; j++)
			ncclProfiler_v5.stopEvent(t[j]);
		for (int j = 0; j < 4; j++)
			for (int c = 0; c < 2; c++)
				k[j][c] = kernel(ctx, t[j]);
		for (int j = 3; j >= 0; j--)
			for (int c = 0; c < 2; c++)
				ncclProfiler_v5.stopEvent(k[j][c]);
	}
	ncclProfiler_v5.finalize(ctx);
	return ctx;
}

static void test_concurrent(void **state)
{
	nns_profiler *p = profiler();
	pthread_t th[THREADS];
	struct ncp_stats a, b;
	size_t exec = 0;

	(void)state;
	ncp_stats(&a);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, hammer, NULL), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	ncp_stats(&b);
	nns_destroy(p);
	assert_int_equal(b.recorded - a.recorded, THREADS * TASKS);
	assert_int_equal(b.bad_handle - a.bad_handle, 0);
	assert_int_equal(b.pool_full - a.pool_full, 0);
	assert_int_equal(b.no_completion - a.no_completion, 0);
	assert_int_equal(coll_records(&exec), THREADS * TASKS);
	assert_int_equal(exec, THREADS * TASKS);
}

static void test_evict(void **state)
{
	nns_profiler *p = profiler();
	void *ctx = NULL, *first, *h, *k;
	int mask = 0;
	struct ncp_stats a, b;
	size_t exec = 0;

	(void)state;
	assert_int_equal(ncclProfiler_v5.init(&ctx, 7, &mask, "e", 1, 2, 0, NULL), 0);
	assert_true(mask & NCCL_PROF_KERNEL_CH);
	ncp_stats(&a);
	/* 4096 stopped tasks waiting for 2 kernel events each fill the pool */
	first = task(ctx, 0, 2);
	assert_non_null(first);
	ncclProfiler_v5.stopEvent(first);
	for (int i = 1; i < 4096; i++) {
		h = task(ctx, (uint64_t)i, 2);
		assert_non_null(h);
		ncclProfiler_v5.stopEvent(h);
	}
	/* the next one evicts the oldest (first): emitted with what it had */
	h = task(ctx, 4096, 2);
	assert_non_null(h);
	ncp_stats(&b);
	assert_int_equal(b.evicted - a.evicted, 1);
	assert_int_equal(b.recorded - a.recorded, 1);
	/* first's kernel events come late: refused, counted */
	k = kernel(ctx, first);
	assert_null(k);
	ncclProfiler_v5.stopEvent(first);
	ncp_stats(&b);
	assert_int_equal(b.bad_handle - a.bad_handle, 2);
	/* h's kernel events complete it: timed by them; their two slots evict
	 * the two oldest waiting tasks (seq 1, 2) */
	ncclProfiler_v5.stopEvent(h);
	{
		void *k1 = kernel(ctx, h), *k2 = kernel(ctx, h);

		assert_non_null(k1);
		assert_non_null(k2);
		ncclProfiler_v5.stopEvent(k1);
		ncclProfiler_v5.stopEvent(k2);
	}
	ncp_stats(&b);
	assert_int_equal(b.recorded - a.recorded, 4);
	assert_int_equal(b.evicted - a.evicted, 3);
	/* finalize emits the 4093 still waiting, enqueue-timed */
	ncclProfiler_v5.finalize(ctx);
	ncp_stats(&b);
	assert_int_equal(b.recorded - a.recorded, 4097);
	assert_int_equal(b.no_completion - a.no_completion, 4093);
	nns_destroy(p);
	assert_int_equal(coll_records(&exec), 4097);
	assert_int_equal(exec, 1);
}

/* tasks with no KernelCh count (nChannels 0) that never get kernel events
 * are emitted when a later task of the communicator begins */
static void test_unknown_channels(void **state)
{
	nns_profiler *p = profiler();
	void *ctx = NULL, *t0, *t1, *t2, *k;
	int mask = 0;
	struct ncp_stats a, b;

	(void)state;
	assert_int_equal(ncclProfiler_v5.init(&ctx, 8, &mask, "u", 1, 2, 0, NULL), 0);
	ncp_stats(&a);
	t0 = task(ctx, 0, 0);
	ncclProfiler_v5.stopEvent(t0);
	t1 = task(ctx, 1, 0);
	ncclProfiler_v5.stopEvent(t1);
	t2 = task(ctx, 2, 0);
	ncclProfiler_v5.stopEvent(t2);
	ncp_stats(&b);
	assert_int_equal(b.recorded - a.recorded, 0);
	k = kernel(ctx, t2); /* t0 and t1 will get none */
	ncp_stats(&b);
	assert_int_equal(b.recorded - a.recorded, 2);
	assert_int_equal(b.no_completion - a.no_completion, 2);
	ncclProfiler_v5.stopEvent(k);
	ncp_stats(&b);
	assert_int_equal(b.recorded - a.recorded, 3);
	ncclProfiler_v5.finalize(ctx);
	nns_destroy(p);
}

static void test_not_collecting(void **state)
{
	nns_profiler *p = profiler();
	void *ctx = NULL;
	int mask = 0;
	size_t exec;
	struct ncp_stats a, b;

	(void)state;
	assert_int_equal(nns_stop(p), 0);
	assert_int_equal(ncclProfiler_v5.init(&ctx, 9, &mask, "n", 1, 2, 0, NULL), 0);
	assert_null(task(ctx, 0, 2));
	ncp_stats(&a);
	assert_null(kernel(ctx, NULL)); /* NCCL's KernelCh of that task */
	ncp_stats(&b);
	assert_int_equal(b.bad_handle, a.bad_handle); /* not an error */
	ncclProfiler_v5.finalize(ctx);
	nns_destroy(p);
	assert_int_equal(coll_records(&exec), 0);
}

/* profile_communication false: init succeeds with activation mask 0 (NCCL
 * then reports nothing) and says so in META; a task started anyway is not
 * recorded. Then a profiler with it on records the same task. */
static void test_comm_off(void **state)
{
	nns_profiler *p = profiler_comm(0);
	void *ctx = NULL, *h;
	int mask = -1;
	size_t exec;
	struct ncp_stats a, b;

	(void)state;
	assert_int_equal(ncclProfiler_v5.init(&ctx, 11, &mask, "off", 1, 2, 0, NULL), 0);
	assert_non_null(ctx);
	assert_int_equal(mask, 0);
	ncp_stats(&a);
	assert_null(task(ctx, 0, 0));
	ncp_stats(&b);
	assert_int_equal(b.recorded, a.recorded);
	ncclProfiler_v5.finalize(ctx);
	nns_destroy(p);
	assert_int_equal(coll_records(&exec), 0);
	tt_rmrf(dir);
	tt_tmpdir(dir, sizeof(dir));

	p = profiler_comm(1);
	ctx = NULL;
	assert_int_equal(ncclProfiler_v5.init(&ctx, 12, &mask, "on", 1, 2, 0, NULL), 0);
	assert_true(mask & NCCL_PROF_COLL);
	h = task(ctx, 0, 0);
	assert_non_null(h);
	ncclProfiler_v5.stopEvent(h);
	ncclProfiler_v5.finalize(ctx);
	nns_destroy(p);
	assert_int_equal(coll_records(&exec), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_concurrent, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_evict, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unknown_channels, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_not_collecting, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_comm_off, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
