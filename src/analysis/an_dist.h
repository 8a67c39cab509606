/*
 * an_dist.h - the distributed view of a run (distributed.c, hta_dist.c):
 * computation/communication per worker, the communication operators
 * matched across workers, HTA's overlap and stragglers. Computed from the
 * workers' finished profiles.
 */
#ifndef NNS_ANALYSIS_AN_DIST_H
#define NNS_ANALYSIS_AN_DIST_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

struct an_dist_comm_row {
	uint32_t worker; /* index into an_dist.workers */
	char name[64];
	int64_t calls;
	int64_t total_bytes;
	int64_t total_latency; /* ns */
	int64_t transfer;      /* ns */
};

struct an_dist_worker {
	char name[128];
	double computation, overlap, communication, other; /* stacked bars, ns avg per step */
	double transfer, synchronizing;			   /* ns avg per step */
	int comparable; /* 0 when this worker's comm ops do not match the others */
	/* HTA (hta_dist.c): comm/comp kernel overlap, percent of comm kernel
	 * time, -1 without comm kernels; mean step time (ns) and late start
	 * (fraction of a step), -1 when undefined */
	double overlap_pct, step_time, late_start;
};

struct hta_straggler; /* analysis/hta_launch.h */

struct an_dist {
	VEC(struct an_dist_worker) workers;
	VEC(struct an_dist_comm_row) comm_ops;
	int available;			  /* any worker had communication */
	char note[256];			  /* why parts are degraded, "" if none */
	struct hta_straggler *stragglers; /* owned, nstragglers rows (hta_dist.c) */
	size_t nstragglers;
};

int an_dist_compute(struct an_dist *d, const struct an_profile *const *profiles,
		    const char *const *worker_names, size_t n, struct nns_err *err);
void an_dist_release(struct an_dist *d);

#endif
