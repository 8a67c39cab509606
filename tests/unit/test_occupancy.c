/*
 * test_occupancy.c - model/occupancy.h against hand-computed launches and
 * against every kernel of the real Kineto traces under ../shared/data/kineto
 * (V100 ResNet-50 runs and the modern H100 traces): blocks per SM and the
 * est. achieved occupancy % libkineto printed must come out of the
 * registers, shared memory, grid, block and deviceProperties of each
 * kernel. Skips the trace part when ../shared is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "importers/kineto.h"
#include "model/occupancy.h"
#include "testutil.h"

static struct occ_device v100(void)
{
	struct model_device md = {0};

	md.major = 7;
	md.minor = 0;
	md.num_sms = 80;
	md.max_threads_per_sm = 2048;
	md.max_threads_per_block = 1024;
	md.regs_per_sm = 65536;
	md.shared_mem_per_sm = 98304;
	md.warp_size = 32;
	struct occ_device d;
	occ_device_from_model(&d, &md);
	return d;
}

static struct occ_device h100(void)
{
	struct model_device md = {0};

	md.major = 9;
	md.minor = 0;
	md.num_sms = 132;
	md.max_threads_per_sm = 2048;
	md.max_threads_per_block = 1024;
	md.regs_per_sm = 65536;
	md.shared_mem_per_sm = 233472;
	md.warp_size = 32;
	struct occ_device d;
	occ_device_from_model(&d, &md);
	return d;
}

/* Worked by hand from cuda_occupancy.h's rules. */
static void test_hand_cases(void **state)
{
	struct occ_device v = v100(), h = h100();

	(void)state;
	/* 128 regs x 32 = 4096 per warp (granularity 256); 4 warps per block;
	 * 65536 / 4 sub-partitions / 4096 = 4 warps each -> 16 warps -> 4
	 * blocks; smem 16 KiB -> 96 KiB / 16 KiB = 6; warps 64 / 4 = 16 */
	assert_int_equal(occ_max_active_blocks(&v, 128, 16384, 0, 128), 4);
	/* 784 blocks on 80 SMs = 9.8 per SM, capped at 4: 4 x 128 / 2048 */
	assert_float_equal(occ_blocks_per_sm(784, 1, 1, 80), 9.8f, 1e-6);
	assert_int_equal(occ_percent(occ_achieved(&v, 128, 16384, 0, 128, 1, 1, 9.8f)), 25);
	/* few blocks: 13 / 80 x 256 / 2048 = 2.03 % -> 2 */
	assert_int_equal(occ_percent(occ_achieved(&v, 38, 0, 0, 256, 1, 1, 13 / 80.0f)), 2);
	/* register granularity: 33 x 32 = 1056 -> 1280 per warp; 16384 per
	 * sub-partition / 1280 = 12 warps x 4 = 48 / 8 warps = 6 blocks (7
	 * without the rounding) */
	assert_int_equal(occ_max_active_blocks(&v, 33, 0, 0, 256), 6);
	/* shared memory granularity: 3100 -> 3328 bytes; 96 KiB / 3328 = 29
	 * (31 without the rounding) */
	assert_int_equal(occ_max_active_blocks(&v, 16, 3100, 0, 32), 29);
	/* warps limit: 1024 threads = 32 warps -> 64 / 32 = 2 blocks */
	assert_int_equal(occ_max_active_blocks(&v, 16, 0, 0, 1024), 2);
	/* block size above the device limit cannot run */
	assert_int_equal(occ_max_active_blocks(&v, 16, 0, 0, 2048), 0);
	/* more than 48 KiB static shared memory: over the default limit */
	assert_int_equal(occ_max_active_blocks(&v, 16, 49153, 0, 64), 0);
	/* 256 registers per thread x 256 threads = 64 Ki: one block; 255 on
	 * Volta is allowed (max 256), 257 is not */
	assert_int_equal(occ_max_active_blocks(&v, 255, 0, 0, 256), 1);
	assert_int_equal(occ_max_active_blocks(&v, 257, 0, 0, 32), 0);
	/* Hopper: 1 KiB reserved per block; 0 static -> 1024 allocated:
	 * 228 KiB / 1 KiB = 228, capped by 32 blocks per SM */
	assert_int_equal(occ_max_active_blocks(&h, 0, 0, 0, 1), 32);
	/* 40 KiB + 1 KiB reserved = 41 KiB -> 228 / 41 = 5 blocks */
	assert_int_equal(occ_max_active_blocks(&h, 32, 40960, 0, 128), 5);
	/* one 1-thread block on 132 SMs: 1/132 x 1 / 2048 -> 0 % */
	assert_int_equal(occ_percent(occ_achieved(&h, 0, 0, 0, 1, 1, 1, 1 / 132.0f)), 0);
	/* unknown architecture */
	h.major = 4;
	assert_int_equal(occ_max_active_blocks(&h, 32, 0, 0, 128), -1);
	assert_int_equal(occ_percent(-1.0f), -1);
}

static int parse3(const char *s, uint32_t *v)
{
	return sscanf(s, "[%u, %u, %u]", &v[0], &v[1], &v[2]) == 3;
}

/* Every kernel of one trace: 1 when the trace was read. */
static int check_trace(const char *path, long *n, long *occ_ok, long *bps_ok, long *capped)
{
	struct model m;
	struct nns_err err;
	struct kineto_opts o = {0};

	o.threads = 1;
	assert_int_equal(model_init(&m), 0);
	nns_err_clear(&err);
	if (kineto_load_file(path, &m, &o, &err) != NNS_OK) {
		printf("SKIP %s: %s\n", path, err.msg);
		model_release(&m);
		return 0;
	}
	for (size_t i = 0; i < m.events.n; i++) {
		const struct model_event *e = &m.events.v[i];
		const struct model_dev_args *a;
		const struct model_device *md;
		struct occ_device d;
		uint32_t g[3], b[3];
		float bps, occ;

		if (e->kind != MK_KERNEL || e->extra == MODEL_NOIDX)
			continue;
		a = &m.dev_args.v[e->extra];
		md = model_device_by_id(&m, e->device);
		if (!md || a->regs < 0 || a->shared_mem < 0 || a->occupancy < 0 || !a->grid ||
		    !a->block || !parse3(model_str(&m, a->grid), g) ||
		    !parse3(model_str(&m, a->block), b))
			continue;
		occ_device_from_model(&d, md);
		(*n)++;
		bps = occ_blocks_per_sm(g[0], g[1], g[2], d.num_sms);
		/* old traces print the float exactly, modern ones with 6 decimals */
		if (fabsf(bps - a->blocks_per_sm) <= 5e-7f + 1e-6f * bps)
			(*bps_ok)++;
		else if (*bps_ok + 5 > *n)
			printf("blocks per SM %s: %g, trace %g\n", model_str(&m, e->name), bps,
			       a->blocks_per_sm);
		/* the trace gives static + dynamic: only their sum matters */
		occ = occ_achieved(&d, a->regs, a->shared_mem, 0, b[0], b[1], b[2], bps);
		/* kernels whose estimate the calculator's limits decide */
		if ((float)occ_max_active_blocks(&d, a->regs, a->shared_mem, 0,
						 (int64_t)b[0] * b[1] * b[2]) < bps)
			(*capped)++;
		if (occ_percent(occ) == (int)a->occupancy)
			(*occ_ok)++;
		else
			printf("occupancy %s regs %d smem %lld grid %s block %s: %d, trace %g\n",
			       model_str(&m, e->name), a->regs, (long long)a->shared_mem,
			       model_str(&m, a->grid), model_str(&m, a->block), occ_percent(occ),
			       a->occupancy);
	}
	model_release(&m);
	return 1;
}

static void test_kineto_traces(void **state)
{
	static const char *const files[] = {
	    "data/kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
	    "data/kineto/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz",
	    "data/kineto/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz",
	    "data/kineto/resnet50_num_workers_4/worker0.1623213129365.pt.trace.json.gz",
	    "data/kineto/modern/before_fix_trace.json",
	    "data/kineto/modern/after_fix_trace.json",
	};
	const char *sh = tu_shared_dir();
	long n = 0, occ_ok = 0, bps_ok = 0, capped = 0;
	int read = 0;
	char path[1024];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/%s", sh, files[0]);
	if (!(f = fopen(path, "rb"))) {
		printf("SKIP: %s absent, Kineto occupancy not checked\n", path);
		skip();
	}
	fclose(f);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", sh, files[i]);
		read += check_trace(path, &n, &occ_ok, &bps_ok, &capped);
	}
	printf("occupancy: %d traces, %ld kernels: est. achieved occupancy %% equal on %ld, "
	       "blocks per SM equal (to the printed precision) on %ld; %ld capped by the "
	       "register/shared memory/warp/block limits\n",
	       read, n, occ_ok, bps_ok, capped);
	assert_int_equal(read, 6);
	assert_true(n > 1000);
	assert_int_equal(occ_ok, n);
	assert_int_equal(bps_ok, n);
	assert_true(capped > 1000); /* the limits, not just grid / SMs, were exercised */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hand_cases),
	    cmocka_unit_test(test_kineto_traces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
