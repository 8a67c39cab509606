/*
 * an_gpu.h - the GPU summary of a worker, one row per device (AN_PASS_GPU,
 * gpu.c): utilization, SM efficiency, occupancy, tensor-core ratio and
 * their series.
 */
#ifndef NNS_ANALYSIS_AN_GPU_H
#define NNS_ANALYSIS_AN_GPU_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

struct an_point {
	int64_t ts;
	double value;
};

struct an_range_value {
	int64_t start, end;
	double value;
};

struct an_gpu {
	int id;				   /* kernel args.device */
	double utilization;		   /* 0..1 */
	double sm_efficiency;		   /* 0..1, <0 if no kernel has blocks per SM */
	double achieved_occupancy;	   /* percent, <0 if no kernel reports it */
	double tensor_core_ratio;	   /* 0..1, of kernels launched by operators;
					    * -1 unknown (AN_TC_NONE) */
	int64_t kernel_time;		   /* merged kernel busy time in the window */
	VEC(struct an_point) util_buckets; /* (bucket start, util), then (end, 0) */
	/* est. SM efficiency per interval: up to two per kernel, so the pass
	 * frees them once sm_buckets are made (empty in p->gpus);
	 * an_gpu_sm_ranges computes them again on request */
	VEC(struct an_range_value) sm_ranges;
	VEC(struct an_point)
	sm_buckets; /* est. SM efficiency averaged over the
		     * util_buckets' buckets (same starts) */
};

/* What the devices of m are called: the model's "device_kind" metadata
 * ("NPU" for an Ascend device of a MindSpore run, importers/ms_load.h),
 * else "GPU". */
const char *an_device_kind(const struct model *m);
/* 1 when m's devices are NPUs (Ascend): no GPU-only advice or columns. */
int an_device_is_npu(const struct model *m);

/* AN_PASS_GPU: fills p->gpus. */
int an_gpu_compute(struct an_profile *p, struct nns_err *err);

/* The SM efficiency ranges (and sm_efficiency) of device id, as the pass
 * computes them, into out (zeroed here; the caller frees out->sm_ranges).
 * Needs AN_PASS_STEPS. NNS_OK or NNS_ENOMEM. */
int an_gpu_sm_ranges(const struct an_profile *p, int id, struct an_gpu *out, struct nns_err *err);

#endif
