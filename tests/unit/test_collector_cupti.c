/*
 * test_collector_cupti.c - CUPTI record decoding (src/collector/
 * cupti_records.c) without a GPU (owner: the collector). A buffer is built
 * by hand with CUDA 13's own structs (cupti_activity.h: CUpti_ActivityAPI,
 * Kernel10, Memcpy6, MemcpyPtoP4, Memset4, Synchronization2, Memory4,
 * ExternalCorrelation, and an Overhead3 record the decoder must skip),
 * walked with the real libcupti's cuptiActivityGetNextRecord when
 * libcupti.so.13 is here (TEST_CUPTI_LIB, default
 * /usr/local/cuda/lib64/libcupti.so.13) and with the built-in CUDA 13
 * walker, and every field of every nnst_gpu is compared with the value
 * put in. The raw dump (NNSCOPE_CUPTI_DUMP's format) replays to the same
 * records, kernel names included; a truncated dump is NNS_EFORMAT naming
 * the file. Those skip (with a message) without the CUDA headers.
 * The API path (nns_cupti_enable) runs with the fake libcupti/libcuda of
 * tests/e2e/fake_cupti.c built beside this test: a missing library and
 * another subscriber give their reason and NNS_ENOTFOUND / NNS_EIO;
 * enabled, 10 fake launches (kernel + copy) reach the trace as exactly 10
 * KERNEL, 10 MEMCPY, 20 RUNTIME and 2 DEVICE records, host-clocked; a
 * second profiler after the first is destroyed collects again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "collector/collector.h"
#include "collector/cupti_abi.h"
#include "test_collector_util.h"

#include <dlfcn.h>
#include <limits.h>

static char fake[PATH_MAX + 32];
static char tdir[64];

/* GPU records of the one trace in d by type; *hc: those flagged HOSTCLOCK */
static size_t gpu_counts(const char *d, size_t by_type[16], size_t *hc, char *cupti_meta, size_t ms)
{
	char paths[4][512], err[256];
	struct nnst_reader *r;
	uint32_t type, len;
	const uint8_t *p;
	size_t total = 0;

	memset(by_type, 0, 16 * sizeof(size_t));
	*hc = 0;
	cupti_meta[0] = '\0';
	assert_int_equal(tt_list(d, paths, 4), 1);
	assert_int_equal(nnst_reader_open(&r, paths[0], err, sizeof(err)), 0);
	while (nnst_reader_next(r, &type, &p, &len, err, sizeof(err)) == 1) {
		if (type == NNST_CHUNK_GPU) {
			for (uint32_t o = 0; o + sizeof(struct nnst_gpu) <= len;
			     o += sizeof(struct nnst_gpu)) {
				struct nnst_gpu g;

				memcpy(&g, p + o, sizeof(g));
				by_type[g.type & 15]++;
				*hc += (g.flags & NNST_GPUF_HOSTCLOCK) != 0;
				total++;
			}
		} else if (type == NNST_CHUNK_META) {
			for (uint32_t o = 0; o + 4 <= len;) {
				uint32_t kl = tt_u32(p + o), vl = tt_u32(p + o + 4 + kl);

				if (kl == 5 && memcmp(p + o + 4, "cupti", 5) == 0)
					snprintf(cupti_meta, ms, "%.*s", (int)vl,
						 (const char *)p + o + 8 + kl);
				o += 8 + kl + vl;
			}
		}
	}
	nnst_reader_close(r);
	return total;
}

static nns_profiler *new_profiler(void)
{
	struct nns_options o;
	nns_profiler *p;

	tt_tmpdir(tdir, sizeof(tdir));
	assert_true(tdir[0]);
	nns_options_init(&o);
	snprintf(o.output_path, sizeof(o.output_path), "%s", tdir);
	o.cpu_sampling_interval_ms = 0;
	assert_int_equal(nns_create(&p, &o), 0);
	return p;
}

static void test_api_enable(void **state)
{
	int (*launch)(const char *, uint32_t, uint32_t, uint64_t);
	size_t by[16], hc;
	char err[256], meta[256];
	nns_profiler *p;
	void *h, *sym;

	(void)state;
	if (access(fake, R_OK) != 0) {
		print_message("SKIP: %s not built (make %s)\n", fake, fake);
		return;
	}
	/* no library (tried first: the library stays loaded once found) */
	setenv("NNSCOPE_CUPTI_LIB", "/nonexistent/libcupti.so.13", 1);
	p = new_profiler();
	assert_int_equal(nns_cupti_enable(err, sizeof(err)), NNS_ENOTFOUND);
	assert_non_null(strstr(err, "libcupti not found (/nonexistent/libcupti.so.13"));
	nns_destroy(p);
	assert_int_equal(gpu_counts(tdir, by, &hc, meta, sizeof(meta)), 0);
	assert_string_equal(meta, "unavailable: libcupti not found (/nonexistent/libcupti.so.13: "
				  "cannot open shared object file: No such file or directory)");
	tt_rmrf(tdir);

	setenv("NNSCOPE_CUPTI_LIB", fake, 1);
	setenv("NNSCOPE_CUDA_LIB", fake, 1);
	/* another subscriber */
	setenv("FAKE_CUPTI_SUBSCRIBED", "1", 1);
	p = new_profiler();
	assert_int_equal(nns_cupti_enable(err, sizeof(err)), NNS_EIO);
	assert_string_equal(err, "another CUPTI client (torch.profiler, Nsight...) is subscribed");
	nns_destroy(p);
	tt_rmrf(tdir);
	unsetenv("FAKE_CUPTI_SUBSCRIBED");

	h = dlopen(fake, RTLD_NOW);
	assert_non_null(h);
	sym = dlsym(h, "fake_cupti_launch");
	assert_non_null(sym);
	memcpy(&launch, &sym, sizeof(sym));
	for (int round = 0; round < 2; round++) {
		int n = round ? 3 : 10;

		p = new_profiler();
		assert_int_equal(nns_cupti_enable(err, sizeof(err)), NNS_OK);
		assert_string_equal(err, "");
		assert_int_equal(nns_cupti_enable(NULL, 0), NNS_OK); /* idempotent */
		for (int i = 0; i < n; i++)
			assert_int_equal(launch("k", 2, 64, 100), 0);
		nns_destroy(p); /* the forced flush delivers them */
		assert_int_equal(gpu_counts(tdir, by, &hc, meta, sizeof(meta)), 4u * n + 2);
		assert_int_equal(by[NNST_GPU_KERNEL], n);
		assert_int_equal(by[NNST_GPU_MEMCPY], n);
		assert_int_equal(by[NNST_GPU_RUNTIME], 2 * n);
		assert_int_equal(by[NNST_GPU_DEVICE], 2);
		assert_int_equal(hc, 4u * n);
		assert_string_equal(meta, "collecting (CUPTI version 130001, host clock)");
		tt_rmrf(tdir);
	}
	/* no profiler collects now: launches are not recorded, nothing breaks */
	assert_int_equal(launch("k", 2, 64, 100), 0);
	unsetenv("NNSCOPE_CUPTI_LIB");
	unsetenv("NNSCOPE_CUDA_LIB");
}

static void set_fake_path(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		snprintf(fake, sizeof(fake), "%s/libfake_cupti.so", self);
	}
}

#ifdef NNS_HAVE_CUPTI_H
#include <cupti.h>

static _Alignas(8) uint8_t buf[4096];
static size_t used;
static char dir[64];

#define ADD(T, var)                                                                                \
	T *var = (T *)(buf + used);                                                                \
	memset(var, 0, sizeof(T));                                                                 \
	used += sizeof(T)

static const char KNAME[] = "void gemm_kernel<float, 128>(float const*, float*, int)";

/* The buffer: one record of each kind, with distinct values. */
static void build(void)
{
	used = 0;
	memset(buf, 0, sizeof(buf));
	ADD(CUpti_ActivityAPI, api);
	api->kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	api->cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
	api->start = 1000;
	api->end = 1500;
	api->processId = 4321;
	api->threadId = 777;
	api->correlationId = 41;
	ADD(CUpti_ActivityKernel10, k);
	k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k->start = 2000;
	k->end = 3000;
	k->deviceId = 1;
	k->contextId = 5;
	k->streamId = 7;
	k->gridX = 4;
	k->gridY = 2;
	k->gridZ = 3;
	k->blockX = 128;
	k->blockY = 2;
	k->blockZ = 1;
	k->registersPerThread = 40;
	k->staticSharedMemory = 1024;
	k->dynamicSharedMemory = 2048;
	k->correlationId = 41;
	k->graphId = 9;
	k->name = KNAME;
	ADD(CUpti_ActivityMemcpy6, m);
	m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m->copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	m->srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
	m->dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m->bytes = 4096;
	m->start = 3100;
	m->end = 3200;
	m->deviceId = 0;
	m->contextId = 2;
	m->streamId = 8;
	m->correlationId = 42;
	ADD(CUpti_ActivityMemcpyPtoP4, pp);
	pp->kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
	pp->copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
	pp->srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	pp->dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	pp->bytes = 8192;
	pp->start = 3300;
	pp->end = 3400;
	pp->deviceId = 1;
	pp->streamId = 9;
	pp->srcDeviceId = 1;
	pp->dstDeviceId = 0;
	pp->correlationId = 43;
	ADD(CUpti_ActivityMemset4, s);
	s->kind = CUPTI_ACTIVITY_KIND_MEMSET;
	s->value = 0xab;
	s->bytes = 512;
	s->start = 3500;
	s->end = 3550;
	s->deviceId = 0;
	s->streamId = 7;
	s->correlationId = 44;
	ADD(CUpti_ActivityAPI, drv);
	drv->kind = CUPTI_ACTIVITY_KIND_DRIVER;
	drv->cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
	drv->start = 1100;
	drv->end = 1400;
	drv->processId = 4321;
	drv->threadId = 778;
	drv->correlationId = 45;
	ADD(CUpti_ActivitySynchronization2, y);
	y->kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	y->type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
	y->start = 4000;
	y->end = 4500;
	y->correlationId = 46;
	y->contextId = 5; /* the kernel's context: device 1 */
	y->streamId = 7;
	y->cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	/* the API call of that sync comes after it, as CUPTI may order them */
	ADD(CUpti_ActivityAPI, api2);
	api2->kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	api2->cbid = CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020;
	api2->start = 3990;
	api2->end = 4510;
	api2->processId = 4321;
	api2->threadId = 779;
	api2->correlationId = 46;
	/* an event sync of a context no device record names */
	ADD(CUpti_ActivitySynchronization2, ye);
	ye->kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	ye->type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
	ye->start = 4600;
	ye->end = 4700;
	ye->correlationId = 49;
	ye->contextId = 99;
	ye->streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	ye->cudaEventId = 12;
	ADD(CUpti_ActivityMemory4, ma);
	ma->kind = CUPTI_ACTIVITY_KIND_MEMORY2;
	ma->memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
	ma->memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	ma->correlationId = 47;
	ma->address = 0x7f0000dead00ull;
	ma->bytes = 1u << 20;
	ma->timestamp = 5000;
	ma->deviceId = 0;
	ma->streamId = CUPTI_INVALID_STREAM_ID;
	ADD(CUpti_ActivityMemory4, mf);
	*mf = *ma;
	mf->memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
	mf->timestamp = 6000;
	mf->correlationId = 48;
	ADD(CUpti_ActivityExternalCorrelation, x);
	x->kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
	x->externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
	x->externalId = 123456789012ull;
	x->correlationId = 41;
	ADD(CUpti_ActivityOverhead3, o); /* a kind not recorded */
	o->kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
	o->start = 1;
	o->end = 2;
}

struct sink {
	struct nnst_gpu r[64];
	size_t n, calls;
};

static void collect(void *arg, const struct nnst_gpu *r, size_t n)
{
	struct sink *s = arg;

	assert_true(s->n + n <= 64);
	memcpy(s->r + s->n, r, n * sizeof(*r));
	s->n += n;
	s->calls++;
}

static void rec_eq(const struct nnst_gpu *g, uint8_t type, uint32_t name, uint64_t start,
		   uint64_t end, int16_t device, uint32_t corr, uint32_t stream, uint64_t a,
		   uint64_t b, const uint32_t u[8], uint8_t flags)
{
	assert_int_equal(g->type, type);
	assert_int_equal(g->name, name);
	assert_int_equal(g->start, start);
	assert_int_equal(g->end, end);
	assert_int_equal(g->device, device);
	assert_int_equal(g->corr, corr);
	assert_int_equal(g->stream, stream);
	assert_int_equal(g->a, a);
	assert_int_equal(g->b, b);
	assert_int_equal(g->flags, flags);
	for (int i = 0; i < 8; i++)
		assert_int_equal(g->u[i], u[i]);
}

/* The 12 records of build(), flags on the timed ones; api_names: whether
 * cuptiGetCallbackName resolved the names. */
static void check(const struct sink *s, uint8_t flags, int api_names)
{
	const uint32_t uk[8] = {4, 2, 3, 128, 2, 1, 40, 1024};
	const uint32_t um[8] = {1, 2, 3}; /* HTOD; PINNED -> DEVICE (header values below) */
	const uint32_t up[8] = {CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
				CUPTI_ACTIVITY_MEMORY_KIND_DEVICE};
	const uint32_t us[8] = {0xab}, urt[8] = {211}, udr[8] = {307}, ualloc[8] = {1},
		       ufree[8] = {2}, ux[8] = {3};
	const uint32_t uy[8] = {CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 0};
	const uint32_t urt2[8] = {CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020};
	const uint32_t uye[8] = {1, 12};

	/* the enum values the expectations spell out by number */
	assert_int_equal(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 211);
	assert_int_equal(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 307);
	assert_int_equal(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 1);
	assert_int_equal(CUPTI_ACTIVITY_MEMORY_KIND_PINNED, 2);
	assert_int_equal(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 3);
	assert_int_equal(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 3);
	assert_int_equal(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 3);
	assert_int_equal(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, 1);
	assert_int_equal(CUPTI_SYNCHRONIZATION_INVALID_VALUE, 0xffffffffu);
	assert_int_equal(s->n, 12);
	rec_eq(&s->r[0], NNST_GPU_RUNTIME,
	       nns_name(api_names ? "cudaLaunchKernel" : "runtime cbid 211"), 1000, 1500, -1, 41, 0,
	       777, 4321, urt, flags);
	rec_eq(&s->r[1], NNST_GPU_KERNEL, nns_name(KNAME), 2000, 3000, 1, 41, 7, 2048, 9, uk,
	       flags);
	rec_eq(&s->r[2], NNST_GPU_MEMCPY, nns_name("Memcpy"), 3100, 3200, 0, 42, 8, 4096, 0, um,
	       flags);
	rec_eq(&s->r[3], NNST_GPU_MEMCPY, nns_name("Memcpy PtoP"), 3300, 3400, 1, 43, 9, 8192, 0,
	       up, flags);
	rec_eq(&s->r[4], NNST_GPU_MEMSET, nns_name("Memset"), 3500, 3550, 0, 44, 7, 512, 0, us,
	       flags);
	rec_eq(&s->r[5], NNST_GPU_DRIVER,
	       nns_name(api_names ? "cuLaunchKernel" : "driver cbid 307"), 1100, 1400, -1, 45, 0,
	       778, 4321, udr, flags);
	/* the caller's tid/pid from the API record of correlation 46, the
	 * device from the kernel of context 5 */
	rec_eq(&s->r[6], NNST_GPU_SYNC, nns_name("cudaStreamSynchronize"), 4000, 4500, 1, 46, 7,
	       779, 4321, uy, flags);
	rec_eq(&s->r[7], NNST_GPU_RUNTIME,
	       nns_name(api_names ? "cudaStreamSynchronize" : "runtime cbid 131"), 3990, 4510, -1,
	       46, 0, 779, 4321, urt2, flags);
	/* unknown context: device -1; CUPTI's all-ones stream kept; no caller */
	rec_eq(&s->r[8], NNST_GPU_SYNC, nns_name("cudaEventSynchronize"), 4600, 4700, -1, 49,
	       0xffffffffu, 0, 0, uye, flags);
	rec_eq(&s->r[9], NNST_GPU_MEMORY, nns_name("cudaMalloc"), 5000, 5000, 0, 47, 0,
	       0x7f0000dead00ull, 1u << 20, ualloc, flags);
	rec_eq(&s->r[10], NNST_GPU_MEMORY, nns_name("cudaFree"), 6000, 6000, 0, 48, 0,
	       0x7f0000dead00ull, 1u << 20, ufree, flags);
	rec_eq(&s->r[11], NNST_GPU_EXTCORR, 0, 0, 0, -1, 41, 0, 123456789012ull, 0, ux, 0);
}

static void *cupti_lib(void)
{
	const char *path = getenv("TEST_CUPTI_LIB");
	void *h;

	if (!path)
		path = "/usr/local/cuda/lib64/libcupti.so.13";
	if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
		print_message("SKIP: real libcupti walker (%s: %s)\n", path, dlerror());
	return h;
}

static void test_real_walker(void **state)
{
	struct nns_cupti_conv c;
	struct sink s = {0};
	void *h = cupti_lib(), *p;
	nns_cupti_next_fn next;

	(void)state;
	if (!h)
		return;
	build();
	assert_int_equal(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 131);
	assert_int_equal(nns_cupti_conv_init(&c), 0);
	p = dlsym(h, "cuptiActivityGetNextRecord");
	assert_non_null(p);
	memcpy(&next, &p, sizeof(p));
	p = dlsym(h, "cuptiGetCallbackName");
	assert_non_null(p);
	memcpy(&c.cbname, &p, sizeof(p));
	c.flags = NNST_GPUF_HOSTCLOCK;
	assert_int_equal(nns_cupti_decode(&c, buf, used, next, collect, &s), 12);
	check(&s, NNST_GPUF_HOSTCLOCK, 1);
	assert_int_equal(c.skipped, 1); /* the overhead record */
	nns_cupti_conv_release(&c);
	/* not dlclose()d: libcupti's own allocations would then show as leaks */
}

static void test_builtin_walker(void **state)
{
	struct nns_cupti_conv c;
	struct sink s = {0};

	(void)state;
	build();
	assert_int_equal(nns_cupti_conv_init(&c), 0);
	/* no cuptiGetCallbackName: "runtime cbid N"; CUPTI clock: no flag */
	assert_int_equal(nns_cupti_decode(&c, buf, used, NULL, collect, &s), 12);
	check(&s, 0, 0);
	/* it stops at a kind whose size it does not know (the overhead) */
	assert_int_equal(c.skipped, 0);
	/* a buffer cut inside a record yields the whole records before it */
	s.n = 0;
	assert_int_equal(
	    nns_cupti_decode(&c, buf, sizeof(CUpti_ActivityAPI) + 100, NULL, collect, &s), 1);
	nns_cupti_conv_release(&c);
}

static void test_dump_replay(void **state)
{
	struct nns_cupti_conv c;
	struct sink a = {0}, b = {0};
	struct nns_err err;
	char path[128], cut[160], cmd[600];

	(void)state;
	tt_tmpdir(dir, sizeof(dir));
	assert_true(dir[0]);
	build();
	snprintf(path, sizeof(path), "%s/cupti_1_1.buf", dir);
	/* the dump stops where the built-in walker stops: drop the overhead */
	assert_int_equal(nns_cupti_dump(path, 130001, NNST_GPUF_HOSTCLOCK, buf,
					used - sizeof(CUpti_ActivityOverhead3), NULL),
			 0);
	assert_int_equal(nns_cupti_conv_init(&c), 0);
	nns_cupti_decode(&c, buf, used, NULL, collect, &a);
	/* the replayed buffer lives elsewhere: the name pointer is rebuilt;
	 * the dump's flags are applied */
	nns_err_clear(&err);
	assert_int_equal(nns_cupti_replay(path, &c, NULL, collect, &b, &err), 0);
	assert_int_equal(b.n, 12);
	check(&b, NNST_GPUF_HOSTCLOCK, 0);
	for (size_t i = 0; i < 12; i++)
		if (b.r[i].type != NNST_GPU_EXTCORR)
			b.r[i].flags = 0;
	assert_memory_equal(a.r, b.r, 12 * sizeof(struct nnst_gpu));
	/* truncated: an error naming the file, no crash */
	snprintf(cut, sizeof(cut), "%s/cut.buf", dir);
	snprintf(cmd, sizeof(cmd), "head -c 300 %s > %s", path, cut);
	assert_int_equal(system(cmd), 0);
	b.n = 0;
	assert_int_equal(nns_cupti_replay(cut, &c, NULL, collect, &b, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, cut));
	assert_int_equal(b.n, 0);
	/* not a dump at all */
	snprintf(cmd, sizeof(cmd), "printf 'hello world, not a dump' > %s", cut);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(nns_cupti_replay(cut, &c, NULL, collect, &b, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "not a CUPTI buffer dump"));
	/* a name pointing at a record that is not a kernel (the first, an API
	 * record): the byte offset is the u32 after the 4-byte name count */
	snprintf(cmd, sizeof(cmd),
		 "cp %s %s && printf '\\000\\000\\000\\000' | dd of=%s bs=1 seek=%zu "
		 "conv=notrunc 2>/dev/null",
		 path, cut, cut,
		 (size_t)(10 + 4 + 4 + 8 + used - sizeof(CUpti_ActivityOverhead3) + 4));
	assert_int_equal(system(cmd), 0);
	assert_int_equal(nns_cupti_replay(cut, &c, NULL, collect, &b, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "not a kernel"));
	assert_int_equal(b.n, 0);
	nns_cupti_conv_release(&c);
	tt_rmrf(dir);
}

static const char *stub_names[] = {"cudaMemcpyAsync_ptsz_v7000", "cudaGraphLaunch_v10000",
				   "cudaFoo_v12", "cuMemAlloc_v2", "cudaBar_vx7000"};

static int stub_cbname(uint32_t domain, uint32_t cbid, const char **name)
{
	(void)domain;
	if (cbid >= 5)
		return 1;
	*name = stub_names[cbid];
	return 0;
}

/* CUPTI's version suffix dropped from runtime names only, 4+ digits only */
static void test_api_names(void **state)
{
	static const char *want[] = {"cudaMemcpyAsync_ptsz", "cudaGraphLaunch", "cudaFoo_v12",
				     "cuMemAlloc_v2", "cudaBar_vx7000"};
	struct nns_cupti_conv c;
	struct nnst_gpu g;
	CUpti_ActivityAPI a;

	(void)state;
	assert_int_equal(nns_cupti_conv_init(&c), 0);
	c.cbname = stub_cbname;
	for (uint32_t i = 0; i < 5; i++) {
		memset(&a, 0, sizeof(a));
		a.kind = i == 3 ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME;
		a.cbid = i;
		assert_int_equal(nns_cupti_convert(&c, (const uint8_t *)&a, &g), 1);
		assert_int_equal(g.name, nns_name(want[i]));
	}
	/* cbid 3 in the runtime domain: cached apart from the driver's cbid 3,
	 * and a 1-digit suffix stays */
	a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	a.cbid = 3;
	assert_int_equal(nns_cupti_convert(&c, (const uint8_t *)&a, &g), 1);
	assert_int_equal(g.name, nns_name("cuMemAlloc_v2"));
	nns_cupti_conv_release(&c);
}

static void test_memory_other_ops(void **state)
{
	struct nns_cupti_conv c;
	struct nnst_gpu g;
	CUpti_ActivityMemory4 m;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
	m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID;
	assert_int_equal(nns_cupti_conv_init(&c), 0);
	assert_int_equal(nns_cupti_convert(&c, (const uint8_t *)&m, &g), 0);
	assert_int_equal(c.skipped, 1);
	nns_cupti_conv_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_api_enable),	     cmocka_unit_test(test_real_walker),
	    cmocka_unit_test(test_builtin_walker),   cmocka_unit_test(test_dump_replay),
	    cmocka_unit_test(test_memory_other_ops), cmocka_unit_test(test_api_names),
	};

	set_fake_path();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_api_enable),
	};

	printf("SKIP: record decoding tests need the CUDA headers (CUDA_INC)\n");
	set_fake_path();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
