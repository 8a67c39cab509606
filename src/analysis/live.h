/*
 * live.h - incremental analysis of one .nnst trace while it is written
 * (docs/LIVE.md). Fed the file's chunks in order as they land
 * (importers/nnst_tail.h reads them), it keeps what a live view shows:
 * the completed steps and their breakdown, the operator and kernel tables
 * of the whole run and of the last steps, the memory curve, CPU and queue
 * samples. Each chunk is decoded once; the cost of feeding is proportional
 * to the new records, and every query below reads only the kept results
 * (the recent log is bounded by LIVE_RECENT_STEPS steps, the series by
 * LIVE_SERIES_MAX points: older points are merged pairwise).
 *
 * The numbers follow `nnscope analyse` where the stream allows it, and the
 * final view after the trace closes is `nnscope analyse` itself (the server
 * switches to it; `nnscope top` prints the final live state). Differences while live, by design:
 *   - steps: a step is complete when the next step mark (nns_step, STOP)
 *     or the end of its ProfilerStep#N range arrives; the open step is not
 *     listed. Its breakdown counts the ranges and GPU records that start
 *     in it and had arrived at the query (a thread's block may land up to
 *     0.5 s later: the breakdown of the last step may still grow).
 *   - operators: host self = total - direct child nodes (operators,
 *     modules, steps; user annotations are transparent), as optree.c,
 *     without subtracting CUDA launch time; device time is not attributed.
 *   - time: raw timestamps go through the clock points seen so far
 *     (extrapolated beyond the last), GPU timestamps through the latest
 *     GPUCLOCK pair.
 *
 * No I/O; the caller feeds payloads. Not thread-safe: one owner at a time.
 * Ownership: struct live is heap storage from live_new() to live_free();
 * pointers returned by queries are valid until the next live_feed().
 */
#ifndef NNS_ANALYSIS_LIVE_H
#define NNS_ANALYSIS_LIVE_H

#include "common/err.h"
#include "common/hmap.h"
#include "common/strpool.h"
#include "common/vec.h"
#include "format/nnst.h"

#include <stdint.h>

#define LIVE_RECENT_STEPS 128  /* steps whose ranges stay in the recent log */
#define LIVE_SERIES_MAX 4096   /* points kept per series before merging */
#define LIVE_EXACT_STEPS 4096  /* step statistics sort up to this many steps */
#define LIVE_MAX_DEVICES 64    /* memory devices kept (more: records skipped) */
#define LIVE_MAX_QUEUES 256    /* queues kept (more: samples skipped) */
#define LIVE_HIST_BUCKETS 2400 /* 1 % buckets from 1 us to ~4 h */

/* A completed step. Times are model ns (CLOCK_REALTIME, as the importer).
 * The host roles are the overview's (breakdown.c) on each thread: every
 * outermost range gives its time to the highest-priority role among the
 * ranges that hold each instant (communication, DataLoader, CPU exec;
 * steps and modules take none), counted in the step its outermost range
 * starts in; threads are summed, not merged. */
struct live_step {
	int64_t num; /* N of ProfilerStep#N / nns_step(N) */
	int64_t start, end;
	int64_t dataloader; /* ns of host time the DataLoader role takes (below) */
	int64_t cpu_ops;    /* ns of host time the CPU exec role takes */
	int64_t kernel;	    /* ns of GPU kernels starting in it */
	int64_t memcpy;	    /* ns of GPU memcpy + memset starting in it */
	int64_t comm;	    /* ns of NCCL collectives starting in it */
	uint32_t thread;    /* the file's thread index that marked it */
	uint32_t final;	    /* 1 once it left the recent window (breakdown frozen) */
};

/* One row of an operator table (whole run, or last N steps). */
struct live_op {
	uint32_t name; /* id in live.names */
	uint32_t pad;
	uint64_t calls;
	int64_t self, total; /* host ns */
};

/* One row of a kernel table. */
struct live_kernel {
	uint32_t name;
	uint32_t pad;
	uint64_t calls;
	int64_t total, min, max; /* ns */
};

/* A range or GPU record kept in the recent log. */
/* LIVE_R_OP: an operator (the tables); LIVE_R_CPU, LIVE_R_DATALOADER,
 * LIVE_R_COMM: the time an outermost host range and what it holds give
 * each step-time role (the overview's priority: communication, then
 * DataLoader, then CPU exec), named after that range; LIVE_R_KERNEL,
 * LIVE_R_MEMCPY (memcpy and memset), LIVE_R_COMM: GPU records. */
enum { LIVE_R_OP = 1, LIVE_R_DATALOADER, LIVE_R_KERNEL, LIVE_R_MEMCPY, LIVE_R_COMM, LIVE_R_CPU };
struct live_rec {
	int64_t start, dur, self;
	uint32_t name;
	uint8_t what; /* LIVE_R_* */
	uint8_t pad;
	uint16_t pad2;
};

/* A point of a series: value columns by series kind (live_series). */
struct live_point {
	int64_t ts;
	double v[4];
};

/* A bounded time series: when full, neighbouring points merge pairwise
 * (time of the first, values: max for memory, mean for utilization). */
struct live_series {
	VEC(struct live_point) p;
	int merge_max;	 /* 1: merged values are the maximum, 0: the mean */
	uint32_t span;	 /* raw points per kept point now (1, 2, 4, ...) */
	uint32_t last_k; /* raw points merged into the last kept point */
	uint64_t raw;	 /* raw points added */
};

/* Per device memory: series v = {allocated, reserved}. */
struct live_mem {
	int16_t device; /* -1 host */
	int64_t allocated, reserved, peak_allocated, peak_reserved;
	struct live_series s;
};

/* A queue (nns_queue): series v = {size, capacity}. */
struct live_queue {
	uint32_t name;
	uint64_t samples, empty, full;
	double size_sum;
	int64_t capacity, max_size;
	struct live_series s;
};

struct live_thread; /* per-thread decoding state (live.c) */

struct live {
	struct strpool names; /* names of everything below */
	struct hmap strs;     /* file string id -> names id */
	VEC(struct live_thread *) threads;
	struct nnst_header hdr;
	int have_hdr;
	struct nnst_clockmap clock;
	uint64_t gpu_ns, gpu_raw; /* latest GPUCLOCK pair; gpu_raw 0 = none */
	int64_t offset;		  /* realtime - monotonic */
	/* meta */
	int64_t rank, world_size; /* -1 unknown */
	uint32_t host;		  /* names id of META "host", 0 unknown */
	/* steps */
	VEC(struct live_step) steps; /* completed, in order */
	size_t frozen;		     /* steps[0..frozen) left the recent window */
	/* step durations of the whole run: exact up to LIVE_EXACT_STEPS,
	 * then median and p90 from a histogram of 1 % wide buckets */
	uint32_t *step_hist; /* LIVE_HIST_BUCKETS, allocated with the first step */
	double step_sum;
	int64_t step_min, step_max;
	int64_t open_num; /* the open step's number, -1 none */
	int64_t open_start;
	uint32_t open_thread;
	int step_ranges; /* ProfilerStep#N ranges seen: they give the steps */
	/* tables of the whole run */
	struct hmap op_of, kern_of; /* names id -> index */
	VEC(struct live_op) ops;
	VEC(struct live_kernel) kernels;
	/* recent log: records starting at or after the start of the oldest
	 * step kept in the recent window, in arrival order */
	VEC(struct live_rec) recent;
	/* series */
	VEC(struct live_mem) mems;
	VEC(struct live_queue) queues;
	struct live_series cpu_machine; /* v = user, sys, idle, iowait */
	struct live_series cpu_process; /* v = user, sys, rss_kb */
	/* counts */
	int64_t first_ts, last_ts; /* model ns; INT64_MAX / INT64_MIN none */
	uint64_t events, gpu_records, samples, lost, skipped;
	uint64_t lost_process, lost_threads; /* lost = their sum (largest counts seen) */
	uint64_t feeds;
	int ended; /* END chunk */
};

struct live *live_new(void);
void live_free(struct live *l);
/* One chunk of the file, in file order: the header first (live_header),
 * then every chunk. NNS_OK; NNS_ENOMEM (the state stays usable, the
 * chunk's rest is lost). Records that make no sense are skipped
 * (counted in l->skipped), never an error. */
int live_header(struct live *l, const struct nnst_header *h);
int live_feed(struct live *l, uint32_t type, const uint8_t *payload, uint32_t len);

/* ---- queries ---------------------------------------------------------- */

/* Statistics of the durations of the last `last` completed steps (0: all),
 * in ns. n = how many. Exact for up to LIVE_EXACT_STEPS steps; beyond, the
 * median and p90 of the whole run are those of the histogram (within 1 %)
 * and the last `last` steps are the last LIVE_EXACT_STEPS. */
struct live_step_stats {
	size_t n;
	int64_t last, min, max, median, p90;
	double mean;
	double steps_per_s; /* n / (end of last - start of first) */
};
void live_step_stats(const struct live *l, size_t last, struct live_step_stats *st);

/* The steps l->steps[first..n) with their breakdown as of now into
 * out[0..n-first) (the caller's array): steps still in the recent window
 * are summed from the recent log (one pass over it), older ones were
 * frozen when they left it. */
void live_steps_now(const struct live *l, size_t first, struct live_step *out);

/* Operator and kernel tables of the last `last` completed steps (records
 * starting in them; last <= LIVE_RECENT_STEPS), sorted by self (operators)
 * or total (kernels) descending; malloc'd arrays the caller frees, *n rows.
 * last = 0: the whole run (copies of l->ops / l->kernels, sorted). */
int live_top_ops(const struct live *l, size_t last, struct live_op **rows, size_t *n);
int live_top_kernels(const struct live *l, size_t last, struct live_kernel **rows, size_t *n);

static inline const char *live_str(const struct live *l, uint32_t id)
{
	return strpool_get(&l->names, id);
}

#endif
