/*
 * test_collector_gpu.c - the collector's GPU record queue (src/collector/
 * gpu_out.c) end to end through the writer (owner: the collector): records
 * handed to nns_gpu_submit come out byte for byte in GPU chunks, after the
 * STRINGS chunk defining their names; clock points come out in a GPUCLOCK
 * chunk; with no profiler attached nothing is queued; a batch larger than
 * the queue is written whole: the producer waits for the writer to make
 * room (back-pressure) instead of dropping, and no META
 * gpu_records_dropped is written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "collector/collector.h"
#include "test_collector_util.h"

static char dir[64];

struct gpu_file {
	struct nnst_gpu *rec;
	size_t n;
	struct nnst_gpuclock clk[NNS_GPUCLOCK_MAX];
	size_t nclk;
	uint32_t max_name_before_gpu; /* highest string id defined before the first GPU chunk */
	int gpu_before_strings;	      /* a GPU chunk named an id not yet defined */
	char dropped[32];
};

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

static void read_gpu(const char *path, struct gpu_file *g)
{
	struct nnst_reader *r;
	const uint8_t *p;
	uint32_t type, len, maxid = 0;
	char err[256];

	memset(g, 0, sizeof(*g));
	assert_int_equal(nnst_reader_open(&r, path, err, sizeof(err)), 0);
	while (nnst_reader_next(r, &type, &p, &len, err, sizeof(err)) == 1) {
		if (type == NNST_CHUNK_STRINGS) {
			for (uint32_t off = 0; off + 8 <= len;) {
				uint32_t id = tt_u32(p + off), sl = tt_u32(p + off + 4);

				maxid = id > maxid ? id : maxid;
				off += 8 + sl;
			}
		} else if (type == NNST_CHUNK_GPU) {
			size_t k = len / sizeof(struct nnst_gpu);

			assert_int_equal(len % sizeof(struct nnst_gpu), 0);
			g->rec = realloc(g->rec, (g->n + k) * sizeof(*g->rec));
			assert_non_null(g->rec);
			memcpy(g->rec + g->n, p, len);
			for (size_t i = 0; i < k; i++)
				if (g->rec[g->n + i].name > maxid)
					g->gpu_before_strings = 1;
			g->n += k;
		} else if (type == NNST_CHUNK_GPUCLOCK) {
			size_t k = len / sizeof(struct nnst_gpuclock);

			assert_int_equal(len % sizeof(struct nnst_gpuclock), 0);
			assert_true(g->nclk + k <= NNS_GPUCLOCK_MAX);
			memcpy(g->clk + g->nclk, p, len);
			g->nclk += k;
		} else if (type == NNST_CHUNK_META) {
			for (uint32_t off = 0; off + 4 <= len;) {
				uint32_t kl = tt_u32(p + off), vl = tt_u32(p + off + 4 + kl);

				if (kl == 19 && memcmp(p + off + 4, "gpu_records_dropped", 19) == 0)
					snprintf(g->dropped, sizeof(g->dropped), "%.*s", (int)vl,
						 (const char *)(p + off + 8 + kl));
				off += 8 + kl + vl;
			}
		}
	}
	nnst_reader_close(r);
}

static void trace_path(char *dst)
{
	char paths[4][512];

	assert_int_equal(tt_list(dir, paths, 4), 1);
	memcpy(dst, paths[0], 512);
}

static void test_records_roundtrip(void **state)
{
	struct nns_options o;
	nns_profiler *p;
	struct nnst_gpu r[3];
	struct gpu_file g;
	char path[512];

	(void)state;
	memset(r, 0, sizeof(r));
	nns_options_init(&o);
	snprintf(o.output_path, sizeof(o.output_path), "%s", dir);
	assert_int_equal(nns_create(&p, &o), 0);
	r[0].type = NNST_GPU_KERNEL;
	r[0].name = nns_name("void gemm_kernel<128, 64>(float*)");
	r[0].start = 1000;
	r[0].end = 4000;
	r[0].corr = 7;
	r[0].stream = 13;
	r[0].device = 1;
	r[0].a = 4096;
	for (int i = 0; i < 8; i++)
		r[0].u[i] = (uint32_t)(10 + i);
	r[1].type = NNST_GPU_RUNTIME;
	r[1].name = nns_name("cudaLaunchKernel");
	r[1].flags = NNST_GPUF_HOSTCLOCK;
	r[1].corr = 7;
	r[1].a = 4242;
	r[1].b = 99;
	r[2].type = NNST_GPU_MEMCPY;
	r[2].name = 0;
	r[2].a = 1u << 20;
	assert_int_equal(nns_gpu_submit(r, 3), 3);
	assert_int_equal(nns_gpu_clock_point(111, 222), 0);
	assert_int_equal(nns_gpu_clock_point(333, 444), 0);
	nns_destroy(p);

	trace_path(path);
	read_gpu(path, &g);
	assert_int_equal(g.n, 3);
	assert_memory_equal(g.rec, r, sizeof(r));
	assert_false(g.gpu_before_strings);
	assert_int_equal(g.nclk, 2);
	assert_int_equal(g.clk[0].gpu_ns, 111);
	assert_int_equal(g.clk[1].raw, 444);
	assert_string_equal(g.dropped, "");
	free(g.rec);
}

static void test_nothing_attached(void **state)
{
	struct nnst_gpu r;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.type = NNST_GPU_KERNEL;
	assert_int_equal(nns_gpu_submit(&r, 1), 0);
	assert_int_equal(nns_gpu_clock_point(1, 2), -1);
	assert_int_equal(nns_gpu_submit(NULL, 5), 0);
}

static void test_overflow_waits(void **state)
{
	struct nns_options o;
	nns_profiler *p;
	size_t n = NNS_GPU_PENDING_MAX + 10;
	struct nnst_gpu *r = calloc(n, sizeof(*r));
	struct gpu_file g;
	char path[512];

	(void)state;
	assert_non_null(r);
	for (size_t i = 0; i < n; i++) {
		r[i].type = NNST_GPU_MEMSET;
		r[i].a = i;
	}
	nns_options_init(&o);
	snprintf(o.output_path, sizeof(o.output_path), "%s", dir);
	assert_int_equal(nns_create(&p, &o), 0);
	assert_int_equal(nns_gpu_submit(r, n), n);
	nns_destroy(p);

	trace_path(path);
	read_gpu(path, &g);
	assert_int_equal(g.n, n);
	for (size_t i = 0; i < n; i++)
		if (g.rec[i].a != i)
			fail_msg("record %zu holds %llu", i, (unsigned long long)g.rec[i].a);
	assert_string_equal(g.dropped, "");
	free(g.rec);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_records_roundtrip, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_nothing_attached, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_overflow_waits, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
