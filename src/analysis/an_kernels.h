/*
 * an_kernels.h - the kernel view of a worker (AN_PASS_KERNELS, kernels.c):
 * kernels by name and by launch properties, and the share of kernel time
 * on tensor cores.
 */
#ifndef NNS_ANALYSIS_AN_KERNELS_H
#define NNS_ANALYSIS_AN_KERNELS_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

struct an_kernel_row {
	uint32_t name;
	uint32_t op_name;     /* by_properties: launching op or "N/A"; else 0 */
	uint32_t grid, block; /* by_properties: "[x, y, z]" */
	int32_t regs;	      /* by_properties, 0 if absent */
	int64_t shared_mem;   /* by_properties, 0 if absent */
	int64_t calls;
	int64_t total, min, max;
	double mean_blocks_per_sm; /* duration-weighted, absent counts as 0;
				    * -1 when no call reports it (unknown) */
	double mean_occupancy;	   /* percent, duration-weighted; -1 unknown */
	int tensor_core;
};

struct an_kernels {
	VEC(struct an_kernel_row) by_name;	 /* all kernels, sorted by total desc */
	VEC(struct an_kernel_row) by_properties; /* kernels reachable from ops */
	double tc_used_ratio;			 /* TC kernel time / all kernel time;
						  * -1 unknown (AN_TC_NONE) */
	int64_t total_time;
};

/* AN_PASS_KERNELS: fills p->kernels, p->tc_support and p->tc_ev. */
int an_kernels_compute(struct an_profile *p, struct nns_err *err);

#endif
