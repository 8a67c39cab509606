/*
 * nccl_prof.h - between the NCCL profiler plugin's version adapters
 * (nccl_prof_abi.c: the exported ncclProfiler_v1..v6 structs) and its one
 * implementation (nccl_prof.c). Nothing else includes it.
 *
 * Each adapter turns NCCL's descriptor of its version into a struct
 * ncp_event and calls the ncp_* functions, which do the work for every
 * version.
 */
#ifndef NNS_COLLECTOR_NCCL_PROF_H
#define NNS_COLLECTOR_NCCL_PROF_H

#include "collector/nccl_profiler_abi.h"

#include <stdint.h>

#define NCP_MASK_BASE (NCCL_PROF_COLL | NCCL_PROF_P2P)
#define NCP_MASK_KERNEL NCCL_PROF_KERNEL_CH
#define NCP_MASK_CE NCCL_PROF_CE_COLL /* v6+ */

enum ncp_kind {
	NCP_OTHER = 0, /* an event nnscope does not record (no handle) */
	NCP_COLL = 1,  /* a collective task */
	NCP_P2P = 2,   /* a send or receive task */
	NCP_KCH = 3,   /* the kernel's work for a task on one channel (v3+) */
	NCP_CE = 4     /* a copy-engine collective (v6+): no kernel events */
};

/* One event as every version describes it; strings are NCCL's and are only
 * read during the call. */
struct ncp_event {
	enum ncp_kind kind;
	const void *parent; /* KCH: the handle we gave its COLL/P2P */
	int rank;	    /* -1 unknown */
	uint64_t comm_hash; /* 0: the context's */
	uint64_t seq;	    /* NCCL's sequence number of the collective */
	const char *func, *dtype, *algo, *proto;
	uint64_t count;
	int root;	 /* COLL: root; P2P: peer */
	int nchannels;	 /* KCH events to expect, 0 unknown */
	uint64_t gpu_ns; /* KCH (v4+): the GPU timer at the start, 0 none */
};

#define NCP_WAIT 256 /* tasks of one communicator waiting for kernel events */

/* Per-communicator context handed to NCCL by init. */
struct ncp_ctx {
	uint32_t magic; /* NCP_CTX_MAGIC while alive */
	int version;
	int kernel_events; /* KernelCh events asked for: completion times */
	int gpu_timer;	   /* v4+ with kernel events: their GPU times are used */
	int rank, nranks;  /* -1 / 0 unknown (v1-v3 init gives neither) */
	uint64_t comm_hash;
	/* handles of its enqueued tasks with no known KernelCh count, oldest
	 * first (the pool's mutex): one whose kernel events have not begun
	 * when a later task's begin is emitted without them */
	uint64_t wait[NCP_WAIT];
	uint32_t whead, wlen;
	struct ncp_ctx *next_dead; /* finalized, freed with the pool */
};
#define NCP_CTX_MAGIC 0x4e43434cu /* "NCCL" */

/* init for every version: allocates *out (NULL on failure: NCCL then
 * disables the plugin), writes the activation mask (v3+: KernelCh too,
 * unless NNSCOPE_NCCL_KERNEL_EVENTS=0; v6+: CeColl). Returns 0 or a
 * negative NNS_E*. */
int ncp_init(struct ncp_ctx **out, int version, int *mask, uint64_t comm_hash, int nranks,
	     int rank);
/* startEvent: *handle = an opaque tagged handle or NULL (event not
 * recorded, pool full, not collecting). Never fails. */
void ncp_start(struct ncp_ctx *ctx, const struct ncp_event *e, void **handle);
void ncp_stop(void *handle);
/* recordEventState KernelChStop (v4+): the GPU timer at the channel's
 * stop, read from NCCL's timer ring; other handles are ignored. */
void ncp_kernel_stop_time(void *handle, uint64_t gpu_ns);
/* finalize: emits what the context still holds, frees it. */
void ncp_finalize(struct ncp_ctx *ctx);

/* Counters since the process started (for tests and the META keys). */
struct ncp_stats {
	uint64_t recorded;	/* COLL records handed to the writer */
	uint64_t pool_full;	/* events not recorded: no free slot */
	uint64_t bad_handle;	/* stop/parent with a NULL, unknown or stale handle */
	uint64_t evicted;	/* tasks emitted before their kernel events to free a slot */
	uint64_t no_completion; /* tasks emitted without kernel events though asked */
	uint64_t gpu_timed;	/* COLL records timed by the GPU timer (stream 2) */
	uint64_t gpu_unusable;	/* tasks whose kernel events had no usable GPU times */
};
void ncp_stats(struct ncp_stats *out);

#endif
