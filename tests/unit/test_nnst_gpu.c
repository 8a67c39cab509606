/*
 * test_nnst_gpu.c - the .nnst importer's GPU records (nnst_gpu.c) on
 * hand-built traces: a cudaLaunchKernel inside an aten::mm range and its
 * kernel (correlation 7) become a runtime and a kernel the analyses tie to
 * aten::mm; memcpy/memset names and bytes, device properties and the
 * occupancy computed from them, a Stream Sync, cudaMalloc counters, the
 * external correlation, three NCCL collectives in the distributed view
 * (calls, bytes = count x dtype size, rank and world size), both clock
 * modes (host clock; CUPTI clock mapped through GPUCLOCK points, also on a
 * TSC trace) checked to the ns, and malformed GPU chunks skipped and
 * counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "format/nnst.h"
#include "format/nnst_writer.h" /* NNST_EVF_WARMUP */
#include "importers/nnst.h"
#include "nnstb.h"
#include "testutil.h"

#define RT 1700000000000000000LL /* header start_realtime_ns */
#define MONO 1000000LL		 /* header start_mono_ns */
#define PID 4242
#define TID 4243
#define K 5000000000000ULL /* CUPTI clock = monotonic + K in the GPUCLOCK tests */

enum {
	S_MM = 1,
	S_LAUNCH,
	S_GEMM,
	S_H100,
	S_ALLREDUCE,
	S_F32,
	S_RING,
	S_LL,
	S_ALLGATHER,
	S_BF16,
	S_I64,
	S_MEMCPYASYNC,
	S_SIMPLE,
	S_SYNC,
	S_ALLREDUCE_TORCH
};

static const char *const names[] = {
    NULL,
    "aten::mm",
    "cudaLaunchKernel",
    "gemm_kernel",
    "NVIDIA H100",
    "AllReduce",
    "ncclFloat32",
    "Ring",
    "LL",
    "AllGather",
    "ncclBfloat16",
    "ncclInt64",
    "cudaMemcpyAsync",
    "Simple",
    "cudaStreamSynchronize",
    "nccl:all_reduce",
};

static void strings(struct nb *b)
{
	for (uint32_t i = 1; i < sizeof(names) / sizeof(names[0]); i++)
		nb_string(b, i, names[i]);
}

/* One 80-byte GPU record appended to a payload. */
static void gr(struct nb *p, uint64_t start, uint64_t end, uint32_t name, uint8_t type,
	       uint8_t flags, int16_t device, uint32_t corr, uint32_t stream, uint64_t a,
	       uint64_t bb, const uint32_t *u)
{
	uint8_t tf[2] = {type, flags};

	nb_u64(p, start);
	nb_u64(p, end);
	nb_u32(p, name);
	nb_bytes(p, tf, 2);
	nb_u16(p, (uint16_t)device);
	nb_u32(p, corr);
	nb_u32(p, stream);
	nb_u64(p, a);
	nb_u64(p, bb);
	for (int i = 0; i < 8; i++)
		nb_u32(p, u ? u[i] : 0);
}

/* H100 as the CUPTI backend describes it. */
static void device_rec(struct nb *p)
{
	const uint32_t u[8] = {9, 0, 132, 2048, 1024, 65536, 32, 32};

	gr(p, 0, 0, S_H100, NNST_GPU_DEVICE, 0, 0, 0, 0, 85899345920ULL, 233472, u);
}

/* Non-TSC trace: model ts = mono + RT - MONO. */
static int64_t T(int64_t mono)
{
	return mono + RT - MONO;
}

/* The trace of the first test; gpu_clock: device records in CUPTI time
 * (mono + K) with three GPUCLOCK points, else host clock. */
static void build(struct nb *b, int gpu_clock)
{
	struct nb ev = {0}, g = {0}, c = {0};
	uint8_t hf = gpu_clock ? 0 : NNST_GPUF_HOSTCLOCK;
	uint64_t d = gpu_clock ? K : 0; /* device records' clock */
	const uint32_t launch[8] = {211};
	const uint32_t kern[8] = {784, 1, 1, 128, 1, 1, 128, 8192};
	const uint32_t cpy[8] = {1, 1, 3}; /* HtoD, pageable -> device */
	const uint32_t sync[8] = {3};	   /* stream synchronize */
	const uint32_t alloc[8] = {1}, freed[8] = {2};
	const uint32_t ext0[8] = {3}, ext1[8] = {4}; /* CUSTOM0, CUSTOM1 */
	const uint32_t ar1[8] = {S_F32, S_RING, S_LL, 1, 2, 0, 11, TID};
	const uint32_t ar2[8] = {S_BF16, S_RING, S_SIMPLE, 1, 2, 0, 12, TID};
	const uint32_t ag[8] = {S_I64, S_RING, S_LL, 1, 2, 0, 13, TID};

	nb_header(b, PID, 0, RT, MONO, 0);
	strings(b);
	nb_thread(b, 0, TID, "main");
	nb_ev(&ev, MONO + 1000, NNST_EV_PUSH, 0, S_MM, -1, 0, 0);
	nb_ev(&ev, MONO + 2000, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_events(b, 0, &ev);
	/* completion order, not time order: the kernel before its launch */
	gr(&g, MONO + d + 1500, MONO + d + 1900, S_GEMM, NNST_GPU_KERNEL, hf, 0, 7, 7, 8192, 0,
	   kern);
	gr(&g, MONO + 1100, MONO + 1200, S_LAUNCH, NNST_GPU_RUNTIME, NNST_GPUF_HOSTCLOCK, -1, 7, 0,
	   TID, PID, launch);
	gr(&g, MONO + 2050, MONO + 2080, S_MEMCPYASYNC, NNST_GPU_RUNTIME, NNST_GPUF_HOSTCLOCK, -1,
	   8, 0, TID, PID, NULL);
	gr(&g, MONO + d + 2100, MONO + d + 2300, 0, NNST_GPU_MEMCPY, hf, 0, 8, 7, 4096, 0, cpy);
	gr(&g, MONO + d + 2400, MONO + d + 2450, 0, NNST_GPU_MEMSET, hf, 0, 9, 7, 256, 0, NULL);
	gr(&g, MONO + d + 2500, MONO + d + 2600, S_SYNC, NNST_GPU_SYNC, hf, 0, 10, 7, TID, PID,
	   sync);
	gr(&g, MONO + d + 500, MONO + d + 500, 0, NNST_GPU_MEMORY, hf, 0, 0, 0, 0x7000, 1 << 20,
	   alloc);
	gr(&g, MONO + d + 4000, MONO + d + 4000, 0, NNST_GPU_MEMORY, hf, 0, 0, 0, 0x7000, 1 << 20,
	   freed);
	gr(&g, 0, 0, 0, NNST_GPU_EXTCORR, 0, -1, 7, 0, 42, 0, ext0);
	gr(&g, 0, 0, 0, NNST_GPU_EXTCORR, 0, -1, 7, 0, 99, 0, ext1); /* CUSTOM0 wins */
	/* NCCL: always the host clock */
	gr(&g, MONO + 3000, MONO + 3500, S_ALLREDUCE, NNST_GPU_COLL, NNST_GPUF_HOSTCLOCK, 0, 0, 0,
	   1000, 0xabc, ar1);
	gr(&g, MONO + 3600, MONO + 3700, S_ALLREDUCE, NNST_GPU_COLL, NNST_GPUF_HOSTCLOCK, 0, 0, 0,
	   500, 0xabc, ar2);
	gr(&g, MONO + 3800, MONO + 3900, S_ALLGATHER, NNST_GPU_COLL, NNST_GPUF_HOSTCLOCK, 0, 0, 0,
	   10, 0xabc, ag);
	nb_chunk(b, NNST_CHUNK_GPU, g.p, g.n);
	/* device properties last: pass 1 still has them for the kernel */
	nb_free(&g);
	device_rec(&g);
	nb_chunk(b, NNST_CHUNK_GPU, g.p, g.n);
	if (gpu_clock) {
		/* gpu = mono + K; the points straddle the records */
		nb_u64(&c, MONO + 100 + K);
		nb_u64(&c, MONO + 100);
		nb_u64(&c, MONO + 50000 + K);
		nb_u64(&c, MONO + 50000);
		nb_u64(&c, MONO + 90000 + K);
		nb_u64(&c, MONO + 90000);
		nb_chunk(b, NNST_CHUNK_GPUCLOCK, c.p, c.n);
	}
	nb_end(b);
	nb_free(&ev);
	nb_free(&g);
	nb_free(&c);
}

static void check_model(const struct model *m)
{
	const struct model_event *k, *l, *e;
	const struct model_dev_args *a;
	const struct model_thread *t;
	const struct model_device *dv;

	/* the kernel: on (pid "0", tid "stream 7"), times to the ns */
	k = tu_find_event(m, "gemm_kernel", 0);
	assert_non_null(k);
	assert_int_equal(k->kind, MK_KERNEL);
	assert_int_equal(k->ts, T(MONO + 1500));
	assert_int_equal(k->dur, 400);
	assert_int_equal(model_corr(m, k), 7);
	assert_int_equal(model_ext_id(m, k), 42);
	assert_int_equal(k->device, 0);
	t = &m->threads.v[k->thread];
	assert_string_equal(model_str(m, t->pid), "0");
	assert_string_equal(model_str(m, t->tid), "stream 7");
	a = &m->dev_args.v[k->extra];
	assert_int_equal(a->stream, 7);
	assert_string_equal(model_str(m, a->grid), "[784, 1, 1]");
	assert_string_equal(model_str(m, a->block), "[128, 1, 1]");
	assert_int_equal(a->regs, 128);
	assert_int_equal(a->shared_mem, 16384); /* 8192 static + 8192 dynamic */
	/* 784 blocks / 132 SMs; 128 registers x 4 warps: 4 blocks per SM
	 * (smem allows 228 KiB / 17 KiB = 13) -> 4 x 128 / 2048 = 25 % */
	assert_float_equal(a->blocks_per_sm, 784.0f / 132.0f, 1e-6);
	assert_float_equal(a->occupancy, 25.0, 0);

	/* its launch: on the thread of the aten::mm range, linked by corr */
	l = tu_find_event(m, "cudaLaunchKernel", 0);
	assert_non_null(l);
	assert_int_equal(l->kind, MK_RUNTIME);
	assert_int_equal(l->ts, T(MONO + 1100));
	assert_int_equal(l->dur, 100);
	assert_int_equal(model_ext_id(m, l), 42);
	e = tu_find_event(m, "aten::mm", 0);
	assert_non_null(e);
	assert_int_equal(l->thread, e->thread);
	assert_int_equal(model_launch_of(m, k - m->events.v), (uint32_t)(l - m->events.v));

	e = tu_find_event(m, "Memcpy HtoD (Pageable -> Device)", 0);
	assert_non_null(e);
	assert_int_equal(e->kind, MK_MEMCPY);
	assert_int_equal(e->ts, T(MONO + 2100));
	assert_int_equal(e->dur, 200);
	assert_int_equal(m->dev_args.v[e->extra].bytes, 4096);
	assert_int_not_equal(model_launch_of(m, e - m->events.v), MODEL_NOIDX);
	e = tu_find_event(m, "Memset (Device)", 0);
	assert_non_null(e);
	assert_int_equal(e->kind, MK_MEMSET);
	assert_int_equal(m->dev_args.v[e->extra].bytes, 256);
	e = tu_find_event(m, "Stream Sync", 0);
	assert_non_null(e);
	assert_int_equal(e->kind, MK_SYNC);
	assert_int_equal(model_corr(m, e), 10);
	assert_int_equal(e->ts, T(MONO + 2500));
	assert_int_equal(m->dev_args.v[e->extra].stream, 7);
	assert_string_equal(model_str(m, m->threads.v[e->thread].tid), "stream 7");

	dv = model_device_by_id(m, 0);
	assert_non_null(dv);
	assert_string_equal(model_str(m, dv->name), "NVIDIA H100");
	assert_int_equal(dv->total_mem, 85899345920LL);
	assert_int_equal(dv->major, 9);
	assert_int_equal(dv->minor, 0);
	assert_int_equal(dv->num_sms, 132);
	assert_int_equal(dv->max_threads_per_sm, 2048);
	assert_int_equal(dv->max_threads_per_block, 1024);
	assert_int_equal(dv->regs_per_sm, 65536);
	assert_int_equal(dv->shared_mem_per_sm, 233472);
	assert_int_equal(dv->warp_size, 32);
	assert_int_equal(m->devices.n, 1);

	/* cudaMalloc-level memory: counters, not [memory] rows */
	assert_int_equal(m->mems.n, 0);
	assert_int_equal(m->counters.n, 2);
	assert_int_equal(m->counters.v[0].ts, T(MONO + 500));
	assert_float_equal(m->counters.v[0].value, 1048576.0, 0);
	assert_float_equal(m->counters.v[1].value, 0.0, 0);

	/* NCCL: PyTorch's names and inputs, on the communicator's track */
	e = tu_find_event(m, "nccl:all_reduce", 0);
	assert_non_null(e);
	assert_int_equal(e->kind, MK_USER_ANNOTATION);
	assert_int_equal(e->ts, T(MONO + 3000));
	assert_int_equal(e->dur, 500);
	assert_int_not_equal(e->thread, l->thread);
	assert_string_equal(model_str(m, m->threads.v[e->thread].tid),
			    "NCCL comm 0000000000000abc");
	assert_string_equal(model_str(m, m->op_args.v[e->extra].input_dims), "[[1000]]");
	assert_string_equal(model_str(m, m->op_args.v[e->extra].input_type), "['float']");
	e = tu_find_event(m, "nccl:all_reduce", 1);
	assert_non_null(e);
	assert_string_equal(model_str(m, m->op_args.v[e->extra].input_type), "['c10::BFloat16']");
	assert_non_null(tu_find_event(m, "nccl:all_gather", 0));
	assert_int_equal(m->dist_rank, 1);
	assert_int_equal(m->dist_world_size, 2);
	assert_string_equal(model_str(m, m->dist_backend), "nccl");
	assert_string_equal(model_meta_get(m, "nccl.algorithms"),
			    "nccl:all_reduce Ring/LL x1; nccl:all_reduce Ring/Simple x1; "
			    "nccl:all_gather Ring/LL x1");
	assert_int_equal(m->diag.events_skipped, 0);
}

static const struct an_op_row *op_row(const struct an_profile *p, const char *name)
{
	for (size_t i = 0; i < p->ops.by_name.n; i++)
		if (strcmp(model_str(p->m, p->ops.by_name.v[i].name), name) == 0)
			return &p->ops.by_name.v[i];
	return NULL;
}

static void check_analysis(const struct model *m)
{
	struct an_profile p;
	struct an_dist d;
	struct nns_err err;
	const struct an_profile *pp[1] = {&p};
	const struct an_op_row *r;
	const struct an_kernel_row *kr = NULL;
	int seen_ar = 0, seen_ag = 0;

	assert_int_equal(an_profile_compute(&p, m, &err), NNS_OK);
	/* the kernel's 400 ns are aten::mm's device time */
	r = op_row(&p, "aten::mm");
	assert_non_null(r);
	assert_int_equal(r->calls, 1);
	assert_int_equal(r->dev_self, 400);
	assert_int_equal(r->dev_total, 400);
	/* kernel view: by name and by launching operator */
	assert_int_equal(p.kernels.by_name.n, 1);
	assert_int_equal(p.kernels.by_name.v[0].total, 400);
	assert_int_equal(p.kernels.by_name.v[0].calls, 1);
	for (size_t i = 0; i < p.kernels.by_properties.n; i++)
		if (strcmp(model_str(m, p.kernels.by_properties.v[i].name), "gemm_kernel") == 0)
			kr = &p.kernels.by_properties.v[i];
	assert_non_null(kr);
	assert_string_equal(model_str(m, kr->op_name), "aten::mm");
	assert_float_equal(kr->mean_occupancy, 25.0, 1e-9);
	assert_int_equal(p.kernels.total_time, 400);
	/* GPU view: device 0, occupancy from the kernel */
	assert_int_equal(p.gpus.n, 1);
	assert_int_equal(p.gpus.v[0].id, 0);
	assert_float_equal(p.gpus.v[0].achieved_occupancy, 25.0, 1e-9);
	assert_int_equal(p.gpus.v[0].kernel_time, 400);
	/* overview: kernel, memcpy and memset time were seen */
	assert_true(p.overview.has_kernel);
	assert_true(p.overview.has_memcpy_or_memset);
	assert_true(p.overview.has_communication);
	/* communication: three nodes, bytes = count x dtype size */
	assert_int_equal(p.comm_nodes.n, 3);
	assert_int_equal(p.comm_nodes.v[0].bytes, 4000); /* 1000 x float */
	assert_int_equal(p.comm_nodes.v[1].bytes, 1000); /* 500 x bf16 */
	assert_int_equal(p.comm_nodes.v[2].bytes, 80);	 /* 10 x int64 */
	assert_int_equal(an_dist_compute(&d, pp, NULL, 1, &err), NNS_OK);
	for (size_t i = 0; i < d.comm_ops.n; i++) {
		const struct an_dist_comm_row *c = &d.comm_ops.v[i];

		if (strcmp(c->name, "nccl:all_reduce") == 0) {
			seen_ar = 1;
			assert_int_equal(c->calls, 2);
			assert_int_equal(c->total_bytes, 5000);
			assert_int_equal(c->total_latency, 600);
		} else if (strcmp(c->name, "nccl:all_gather") == 0) {
			seen_ag = 1;
			assert_int_equal(c->calls, 1);
			assert_int_equal(c->total_bytes, 80);
		}
	}
	assert_true(seen_ar && seen_ag);
	an_dist_release(&d);
	an_profile_release(&p);
}

static void test_host_clock(void **state)
{
	struct nb b = {0};
	struct model m;

	(void)state;
	build(&b, 0);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	check_model(&m);
	check_analysis(&m);
	model_release(&m);
	nb_free(&b);
}

/* CUPTI timestamps mapped by the least-squares line through the points:
 * the same model to the ns. */
static void test_gpu_clock(void **state)
{
	struct nb b = {0};
	struct model m;

	(void)state;
	build(&b, 1);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	check_model(&m);
	check_analysis(&m);
	model_release(&m);
	nb_free(&b);
}

/* A TSC trace (3 ticks per ns) and a single GPUCLOCK point: offset only;
 * then two points giving a slope of 1.5 ns per CUPTI ns: refused (two ns
 * clocks differ by ppm) and the mean offset used. No point at all: CUPTI
 * ns taken as monotonic ns, said. */
static void test_tsc_and_fits(void **state)
{
	struct nb b = {0}, g = {0}, c = {0};
	struct model m;
	const struct model_event *k;
	const uint32_t kern[8] = {1, 1, 1, 32, 1, 1, 16, 0};

	(void)state;
	/* tsc = 5000 + 3 (mono - MONO) */
	nb_header(&b, PID, NNST_F_TSC, RT, MONO, 5000);
	strings(&b);
	nb_clock(&b, 5000 + 3 * 1000000, MONO + 1000000, RT + 1000000);
	gr(&g, MONO + 1500 + K, MONO + 1530 + K, S_GEMM, NNST_GPU_KERNEL, 0, 0, 1, 7, 0, 0, kern);
	/* a host-clock record on the same trace: raw TSC */
	gr(&g, 5000 + 3 * 1400, 5000 + 3 * 1460, S_LAUNCH, NNST_GPU_RUNTIME, NNST_GPUF_HOSTCLOCK,
	   -1, 1, 0, TID, PID, NULL);
	nb_chunk(&b, NNST_CHUNK_GPU, g.p, g.n);
	nb_u64(&c, MONO + 700 + K);
	nb_u64(&c, 5000 + 3 * 700);
	nb_chunk(&b, NNST_CHUNK_GPUCLOCK, c.p, c.n);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	k = tu_find_event(&m, "gemm_kernel", 0);
	assert_non_null(k);
	assert_int_equal(k->ts, T(MONO + 1500));
	assert_int_equal(k->dur, 30);
	k = tu_find_event(&m, "cudaLaunchKernel", 0);
	assert_non_null(k);
	assert_int_equal(k->ts, T(MONO + 1400));
	assert_int_equal(k->dur, 60);
	/* no occupancy without device properties */
	k = tu_find_event(&m, "gemm_kernel", 0);
	assert_float_equal(m.dev_args.v[k->extra].occupancy, -1.0, 0);
	model_release(&m);
	nb_free(&b);
	nb_free(&c);

	/* CUPTI on the collector's clock (as on a GPU machine): the points
	 * pair TSC ticks with TSC ticks, a slope of 1/3 ns per tick that no
	 * record needs: nothing said */
	nb_header(&b, PID, NNST_F_TSC, RT, MONO, 5000);
	strings(&b);
	nb_clock(&b, 5000 + 3 * 1000000, MONO + 1000000, RT + 1000000);
	nb_chunk(&b, NNST_CHUNK_GPU, g.p + 80, g.n - 80); /* the host-clock record */
	c.n = 0;
	nb_u64(&c, 5000 + 3 * 100);
	nb_u64(&c, 5000 + 3 * 100);
	nb_u64(&c, 5000 + 3 * 900000);
	nb_u64(&c, 5000 + 3 * 900000);
	nb_chunk(&b, NNST_CHUNK_GPUCLOCK, c.p, c.n);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	k = tu_find_event(&m, "cudaLaunchKernel", 0);
	assert_non_null(k);
	assert_int_equal(k->ts, T(MONO + 1400));
	assert_null(strstr(m.diag.first_problem, "slope"));
	model_release(&m);
	nb_free(&b);
	nb_free(&c);

	/* two points with a slope of 1.5: refused, mean offset used */
	nb_header(&b, PID, 0, RT, MONO, 0);
	strings(&b);
	nb_chunk(&b, NNST_CHUNK_GPU, g.p, g.n - 80); /* the kernel only */
	nb_u64(&c, MONO + 1000 + K);
	nb_u64(&c, MONO + 1000);
	nb_u64(&c, MONO + 3000 + K);
	nb_u64(&c, MONO + 4000);
	nb_chunk(&b, NNST_CHUNK_GPUCLOCK, c.p, c.n);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	k = tu_find_event(&m, "gemm_kernel", 0);
	assert_non_null(k);
	/* mean gpu MONO + 2000 + K <-> mean mono MONO + 2500: +500 - K */
	assert_int_equal(k->ts, T(MONO + 2000));
	assert_non_null(strstr(m.diag.first_problem, "slope"));
	model_release(&m);
	nb_free(&b);
	nb_free(&c);

	/* no point: CUPTI ns are taken as monotonic ns */
	nb_header(&b, PID, 0, RT, MONO, 0);
	strings(&b);
	g.n = 0;
	gr(&g, MONO + 1500, MONO + 1530, S_GEMM, NNST_GPU_KERNEL, 0, 0, 1, 7, 0, 0, kern);
	nb_chunk(&b, NNST_CHUNK_GPU, g.p, g.n);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	k = tu_find_event(&m, "gemm_kernel", 0);
	assert_non_null(k);
	assert_int_equal(k->ts, T(MONO + 1500));
	assert_non_null(strstr(m.diag.first_problem, "no GPUCLOCK point"));
	model_release(&m);
	nb_free(&b);
	nb_free(&g);
}

/* Malformed GPU data: skipped, counted, named; the rest kept. */
static void test_malformed(void **state)
{
	struct nb b = {0}, g = {0};
	struct model m;
	const uint32_t kern[8] = {1, 1, 1, 32, 1, 1, 16, 0};
	const uint32_t odd[8] = {5};
	uint8_t junk[7] = {1, 2, 3, 4, 5, 6, 7};

	(void)state;
	nb_header(&b, PID, 0, RT, MONO, 0);
	strings(&b);
	/* good kernel, then a 7-byte tail */
	gr(&g, MONO + 10, MONO + 20, S_GEMM, NNST_GPU_KERNEL, NNST_GPUF_HOSTCLOCK, 0, 1, 7, 0, 0,
	   kern);
	nb_bytes(&g, junk, sizeof(junk));
	nb_chunk(&b, NNST_CHUNK_GPU, g.p, g.n);
	g.n = 0;
	/* unknown type; end before start; a year away; an undefined name
	 * (kept, placeholder); MEMORY neither alloc nor free; GPUCLOCK of 15 bytes */
	gr(&g, MONO + 10, MONO + 20, S_GEMM, 77, NNST_GPUF_HOSTCLOCK, 0, 1, 7, 0, 0, kern);
	gr(&g, MONO + 30, MONO + 20, S_GEMM, NNST_GPU_KERNEL, NNST_GPUF_HOSTCLOCK, 0, 2, 7, 0, 0,
	   kern);
	gr(&g, MONO + 400LL * 86400 * 1000000000, MONO + 400LL * 86400 * 1000000000 + 5, S_GEMM,
	   NNST_GPU_KERNEL, NNST_GPUF_HOSTCLOCK, 0, 3, 7, 0, 0, kern);
	gr(&g, MONO + 40, MONO + 50, 999, NNST_GPU_KERNEL, NNST_GPUF_HOSTCLOCK, 0, 4, 7, 0, 0,
	   kern);
	gr(&g, MONO + 40, MONO + 40, 0, NNST_GPU_MEMORY, NNST_GPUF_HOSTCLOCK, 0, 0, 0, 1, 2, odd);
	/* a COLL with an unknown datatype string: kept, 0 bytes */
	gr(&g, MONO + 60, MONO + 70, S_ALLREDUCE, NNST_GPU_COLL, NNST_GPUF_HOSTCLOCK, 0, 0, 0, 8, 0,
	   NULL);
	nb_chunk(&b, NNST_CHUNK_GPU, g.p, g.n);
	nb_chunk(&b, NNST_CHUNK_GPUCLOCK, junk, 7);
	nb_chunk(&b, NNST_CHUNK_GPU, junk, 3); /* shorter than a record */
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	/* tail 7 + unknown type + end<start + far + memory kind + GPUCLOCK tail
	 * + the 3-byte chunk */
	assert_int_equal(m.diag.events_skipped, 7);
	/* pass 1 reads the GPUCLOCK chunk first */
	assert_non_null(strstr(m.diag.first_problem, "GPUCLOCK chunk of 7 bytes"));
	assert_non_null(strstr(m.diag.first_problem, "/tmp/"));
	assert_non_null(tu_find_event(&m, "gemm_kernel", 0));
	assert_null(tu_find_event(&m, "gemm_kernel", 1));
	assert_non_null(tu_find_event(&m, "<string 999>", 0));
	assert_non_null(tu_find_event(&m, "nccl:all_reduce", 0));
	model_release(&m);
	nb_free(&b);
	nb_free(&g);
}

/* Collectives are timed to their kernels' end, after the calling thread
 * moved on: on their communicator's track they leave the thread's
 * operators whole and keep their full length; one that overlaps the next
 * of its communicator ends at the next one's start. */
static void test_coll_track(void **state)
{
	struct nb b = {0}, ev = {0}, g = {0};
	struct model m;
	struct an_profile p;
	struct nns_err err;
	const struct model_event *e;
	const uint32_t ar[8] = {S_F32, S_RING, S_LL, 0, 1, 0, 1, TID};

	(void)state;
	nb_header(&b, PID, 0, RT, MONO, 0);
	strings(&b);
	nb_thread(&b, 0, TID, "main");
	/* aten::mm [1000, 1300] holds the first coll's start; a second
	 * aten::mm [1400, 1800] starts inside the second coll */
	nb_ev(&ev, MONO + 1000, NNST_EV_PUSH, 0, S_MM, -1, 0, 0);
	nb_ev(&ev, MONO + 1300, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, MONO + 1400, NNST_EV_PUSH, 0, S_MM, -1, 0, 0);
	nb_ev(&ev, MONO + 1800, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_events(&b, 0, &ev);
	/* communicator 10: [1100, 1350] then [1340, 1600] (overlaps by 10) */
	gr(&g, MONO + 1100, MONO + 1350, S_ALLREDUCE, NNST_GPU_COLL, NNST_GPUF_HOSTCLOCK, 0, 0, 0,
	   10, 10, ar);
	gr(&g, MONO + 1340, MONO + 1600, S_ALLREDUCE, NNST_GPU_COLL, NNST_GPUF_HOSTCLOCK, 0, 0, 0,
	   10, 10, ar);
	/* communicator 11, concurrent with both: its own track, whole */
	gr(&g, MONO + 1200, MONO + 1500, S_ALLREDUCE, NNST_GPU_COLL, NNST_GPUF_HOSTCLOCK, 0, 0, 0,
	   10, 11, ar);
	nb_chunk(&b, NNST_CHUNK_GPU, g.p, g.n);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	e = tu_find_event(&m, "nccl:all_reduce", 0);
	assert_int_equal(e->ts, T(MONO + 1100));
	assert_int_equal(e->dur, 240); /* to the next one's start */
	assert_string_equal(model_str(&m, m.threads.v[e->thread].tid),
			    "NCCL comm 000000000000000a");
	e = tu_find_event(&m, "nccl:all_reduce", 1);
	assert_int_equal(e->ts, T(MONO + 1200));
	assert_int_equal(e->dur, 300);
	assert_string_equal(model_str(&m, m.threads.v[e->thread].tid),
			    "NCCL comm 000000000000000b");
	e = tu_find_event(&m, "nccl:all_reduce", 2);
	assert_int_equal(e->ts, T(MONO + 1340));
	assert_int_equal(e->dur, 260);
	assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
	assert_int_equal(p.tree.partial_overlaps, 0);
	assert_int_equal(p.comm_nodes.n, 3);
	an_profile_release(&p);
	model_release(&m);
	nb_free(&b);
	nb_free(&ev);
	nb_free(&g);
}

/* When the framework recorded its own nccl:* range (PyTorch), it is the
 * communication op; the plugin's collective is kept as "NCCL AllReduce"
 * and not counted a second time. */
static void test_coll_framework_wins(void **state)
{
	struct nb b = {0}, ev = {0}, g = {0};
	struct model m;
	struct an_profile p;
	struct nns_err err;
	const uint32_t ar[8] = {S_F32, S_RING, S_LL, 0, 1, 0, 1, TID};

	(void)state;
	nb_header(&b, PID, 0, RT, MONO, 0);
	strings(&b);
	nb_thread(&b, 0, TID, "main");
	nb_ev(&ev, MONO + 1000, NNST_EV_PUSH, 0, S_ALLREDUCE_TORCH, -1, 0, 0);
	nb_ev(&ev, MONO + 1100, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_events(&b, 0, &ev);
	gr(&g, MONO + 1050, MONO + 1600, S_ALLREDUCE, NNST_GPU_COLL, NNST_GPUF_HOSTCLOCK, 0, 0, 0,
	   10, 10, ar);
	nb_chunk(&b, NNST_CHUNK_GPU, g.p, g.n);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	assert_non_null(tu_find_event(&m, "nccl:all_reduce", 0));
	assert_null(tu_find_event(&m, "nccl:all_reduce", 1));
	assert_non_null(tu_find_event(&m, "NCCL AllReduce", 0));
	assert_int_equal(tu_find_event(&m, "NCCL AllReduce", 0)->dur, 550);
	assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
	assert_int_equal(p.comm_nodes.n, 1);
	an_profile_release(&p);
	model_release(&m);
	nb_free(&b);
	nb_free(&ev);
	nb_free(&g);
}

/* GPU records outside the collection windows are dropped, judged by
 * their launch: window 1 is START(0) at 1000 .. STOP(0) at 2000, window 2
 * is START(5) at 5000 with a warmup STEP at 6000 and an active STEP(7) at
 * 7000 to the end. */
static void test_windows(void **state)
{
	struct nb b = {0}, ev = {0}, g = {0};
	struct model m;
	const uint32_t kern[8] = {1, 1, 1, 32, 1, 1, 16, 0};
	const uint32_t launch[8] = {211, 0, 0, 0, 0, 0, 0, 0};
	const uint32_t ar[8] = {S_F32, S_RING, S_LL, 0, 1, 0, 1, TID};
	const uint64_t launches[5] = {1500, 1990, 3000, 6500, 7500};
	const uint64_t kernels[5] = {1600, 2500, 3100, 6600, 7600}; /* kernel i: launch i */
	size_t nk = 0, nl = 0;
	int64_t kts[5];

	(void)state;
	nb_header(&b, PID, 0, RT, MONO, 0);
	strings(&b);
	nb_thread(&b, 0, TID, "main");
	nb_ev(&ev, MONO + 1000, NNST_EV_START, 0, 0, -1, 0, 0);
	nb_ev(&ev, MONO + 2000, NNST_EV_STOP, 0, 0, -1, 0, 0);
	nb_ev(&ev, MONO + 5000, NNST_EV_START, 0, 0, -1, 5, 1);
	nb_ev(&ev, MONO + 6000, NNST_EV_STEP, NNST_EVF_WARMUP, 0, -1, 6, 0);
	nb_ev(&ev, MONO + 7000, NNST_EV_STEP, 0, 0, -1, 7, 0);
	nb_ev(&ev, MONO + 8000, NNST_EV_PUSH, 0, S_MM, -1, 0, 0);
	nb_ev(&ev, MONO + 8100, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_events(&b, 0, &ev);
	for (uint32_t i = 0; i < 5; i++) {
		gr(&g, MONO + kernels[i], MONO + kernels[i] + 50, S_GEMM, NNST_GPU_KERNEL,
		   NNST_GPUF_HOSTCLOCK, 0, 100 + i, 7, 0, 0, kern);
		gr(&g, MONO + launches[i], MONO + launches[i] + 5, S_LAUNCH, NNST_GPU_RUNTIME,
		   NNST_GPUF_HOSTCLOCK, -1, 100 + i, 0, TID, PID, launch);
	}
	/* a kernel without a launch record: its own start decides (outside) */
	gr(&g, MONO + 4000, MONO + 4050, S_GEMM, NNST_GPU_KERNEL, NNST_GPUF_HOSTCLOCK, 0, 999, 7, 0,
	   0, kern);
	/* collectives: between the windows (dropped) and in step 7 (kept) */
	gr(&g, MONO + 3000, MONO + 3500, S_ALLREDUCE, NNST_GPU_COLL, NNST_GPUF_HOSTCLOCK, 0, 0, 0,
	   10, 10, ar);
	gr(&g, MONO + 7200, MONO + 7300, S_ALLREDUCE, NNST_GPU_COLL, NNST_GPUF_HOSTCLOCK, 0, 0, 0,
	   10, 10, ar);
	nb_chunk(&b, NNST_CHUNK_GPU, g.p, g.n);
	nb_end(&b);
	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	for (size_t i = 0; i < m.events.n; i++) {
		const struct model_event *e = &m.events.v[i];

		if (e->kind == MK_KERNEL) {
			assert_true(nk < 5);
			kts[nk++] = e->ts;
		}
		nl += e->kind == MK_RUNTIME;
	}
	/* kept: launched at 1500 and 1990 (its kernel runs at 2500, after the
	 * STOP), 7500 (active step 7); dropped: 3000 (between windows), 6500
	 * (warmup step 6) and the launchless kernel at 4000 */
	assert_int_equal(nk, 3);
	assert_int_equal(nl, 3);
	assert_int_equal(kts[0], T(MONO + 1600));
	assert_int_equal(kts[1], T(MONO + 2500));
	assert_int_equal(kts[2], T(MONO + 7600));
	assert_non_null(tu_find_event(&m, "nccl:all_reduce", 0));
	assert_int_equal(tu_find_event(&m, "nccl:all_reduce", 0)->ts, T(MONO + 7200));
	assert_null(tu_find_event(&m, "nccl:all_reduce", 1));
	model_release(&m);
	nb_free(&b);
	nb_free(&ev);
	nb_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_host_clock),
	    cmocka_unit_test(test_gpu_clock),
	    cmocka_unit_test(test_tsc_and_fits),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_windows),
	    cmocka_unit_test(test_coll_track),
	    cmocka_unit_test(test_coll_framework_wins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
