/*
 * an_hostinfo.h - the host_info records of a worker (AN_PASS_HOSTINFO,
 * hostinfo.c): execution time per (module, event, stage) and host memory.
 */
#ifndef NNS_ANALYSIS_AN_HOSTINFO_H
#define NNS_ANALYSIS_AN_HOSTINFO_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

/* Average execution time of one (module, event, stage), from start/end
 * (start_end 0/1) pairs of the same thread and process. */
struct an_host_row {
	uint32_t module, event, stage; /* string ids */
	int level;
	int64_t count;
	int64_t total_us, min_us, max_us;
	double avg_us;
};

struct an_host_mem {
	int64_t ts;	   /* ns on the model clock when known (see an_hostinfo) */
	int64_t memory_kb; /* max over the bucket */
};

struct an_hostinfo {
	VEC(struct an_host_row) rows;	/* by total time, descending */
	VEC(struct an_host_mem) memory; /* down-sampled, peak kept */
	int64_t records, instants, unmatched_starts, unmatched_ends;
	int64_t peak_kb;
	int aligned; /* memory ts are model time (the trace's monotonic clock
		      * is known); else raw time_stamp(us) * 1000 */
};

/* AN_PASS_HOSTINFO: fills p->hostinfo. */
int an_hostinfo_compute(struct an_profile *p, struct nns_err *err);
void an_hostinfo_release(struct an_hostinfo *h);

#endif
