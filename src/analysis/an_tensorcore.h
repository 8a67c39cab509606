/*
 * an_tensorcore.h - which kernels run on tensor cores and which devices
 * can have them, and the tensor-core shares of a worker's kernel time
 * (AN_PASS_TENSORCORE, tensorcore.c), computed once in one scan for the
 * kernel, GPU and advice passes to read.
 */
#ifndef NNS_ANALYSIS_AN_TENSORCORE_H
#define NNS_ANALYSIS_AN_TENSORCORE_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

/* Returns 1 if the kernel name looks like a tensor-core kernel. */
int an_tc_kernel(const char *name);

/* Whether the devices of a trace can have NVIDIA tensor cores
 * (tensorcore.c), which decides the tensor-core ratios and the AMP advice:
 *   AN_TC_NONE    AMD (device names with "AMD"/"Instinct"/"Radeon", HIP
 *                 launches hip*), other accelerators (launches but none
 *                 from CUDA: MTIA, XPU ...), deviceProperties without a
 *                 CUDA compute capability, or NVIDIA before Volta (< 7.0):
 *                 ratios unknown (-1, written as null), no TC/AMP advice;
 *   AN_TC_NVIDIA  a device of compute capability >= 7.0 named by NVIDIA, or
 *                 unnamed / named otherwise in a trace with CUDA launches;
 *   AN_TC_UNKNOWN neither (no deviceProperties: old Kineto, hand-written
 *                 traces): ratios from kernel names, no advice. */
enum an_tc_support { AN_TC_UNKNOWN = 0, AN_TC_NONE, AN_TC_NVIDIA };
/* What the trace's devices and launches say (an_tc_scan: one pass). */
struct an_tc_evidence {
	int amd;      /* an AMD device name or a HIP launch */
	int accel;    /* a launch of another accelerator's category (mtia_runtime...) */
	int launches; /* runtime/driver events */
	int cuda;     /* ... of which one is a CUDA call */
};
void an_tc_scan(const struct model *m, struct an_tc_evidence *ev);
/* The trace as a whole (device < 0), or the device with that id: NONE when
 * the trace is, else from that device's properties when it has any. */
int an_tc_support(const struct model *m, const struct an_tc_evidence *ev, int device);
/* Returns 1 if the operator name is tensor-core eligible (allow-list). */
int an_tc_op_eligible(const char *name);

/* an_tc_kernel() on a kernel name id, memoised in p->tc_cache. */
int an_tc_kernel_id(struct an_profile *p, uint32_t name);

/* Kernel time of one device launched by operators (GPU view's ratio). */
struct an_tc_device {
	int device; /* the kernel's device (negative ids count as 0) */
	int64_t kernel_time, tc_time;
};

struct an_tc {
	int64_t kernel_time, tc_time;	  /* all kernels; on tensor cores */
	double used_ratio;		  /* tc_time / kernel_time; -1 unknown (AN_TC_NONE) */
	VEC(struct an_tc_device) devices; /* kernels launched by operators */
	double eligible_ops_kernel_ratio; /* operators' kernel time in TC-eligible
					   * operators (no eligible descendant)
					   * over all operators' kernel time */
};

/* AN_PASS_TENSORCORE: fills p->tc, p->tc_support and p->tc_ev. */
int an_tensorcore_compute(struct an_profile *p, struct nns_err *err);
/* The share of tensor-core time in the kernels operators launched on
 * device, 0 when none; -1 (unknown) when the trace or device cannot have
 * NVIDIA tensor cores. */
double an_tc_device_ratio(const struct an_profile *p, int device);

#endif
