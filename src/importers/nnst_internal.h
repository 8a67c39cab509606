/*
 * nnst_internal.h - state shared by the .nnst importer's files (nnst.c:
 * reading passes and the small chunks; nnst_events.c: event records,
 * ranges and steps). Not used outside src/importers.
 */
#ifndef NNS_IMPORTERS_NNST_INTERNAL_H
#define NNS_IMPORTERS_NNST_INTERNAL_H

#include "common/hmap.h"
#include "format/nnst.h"
#include "format/nnst_writer.h" /* NNST_EVF_WARMUP */
#include "importers/nnst.h"

#define NI_MAX_DEPTH 1024     /* open ranges kept per thread */
#define NI_MAX_THREADS 100000 /* distinct thread indices */

/* An open PUSH range. */
struct ni_open {
	int64_t ts;
	uint32_t name;
	uint32_t dims; /* "input_dims:" text attached by a MARK, 0 if none */
	uint8_t kind;
	uint8_t warmup; /* pushed during a schedule's warmup: not kept */
	uint32_t type;	/* "input_type:" text attached by a MARK, 0 if none */
};

/* Per thread index of the file. */
struct ni_thread {
	uint32_t mthread;  /* model thread */
	int64_t last_ts;   /* latest timestamp seen, INT64_MIN if none */
	int64_t last_mem;  /* index in model.mems of an ALLOC/FREE just read, -1 */
	uint32_t overflow; /* pushes beyond NI_MAX_DEPTH still open */
	VEC(struct ni_open) stack;
	uint64_t lost;	  /* largest LOST count seen */
	size_t next_stop; /* index into ni.stops of the next STOP to pass */
};

/* A BEGIN waiting for its END. */
struct ni_begin {
	int64_t ts;
	uint32_t name;
	int open;
	int early; /* closed by an END read in pass 1; its END in pass 2 is expected */
};

/* An END seen in pass 1: another thread's END may come in an earlier
 * chunk than its BEGIN. */
struct ni_end {
	uint64_t raw_ts;
	int used; /* paired with a BEGIN */
};

/* A step boundary: START and active STEP marks open step `num`; STOP and
 * warmup STEP marks only close the step before them (num = -1). */
struct ni_bound {
	int64_t ts;
	int64_t num;
	uint32_t thread;
};

struct ni {
	struct model *m;
	const char *name; /* path, for messages */
	struct nnst_header hdr;
	struct nnst_clockmap clock;
	int64_t offset;	  /* mono -> model time */
	uint32_t pid;	  /* string id of the pid text */
	struct hmap strs; /* file string id -> model string id */
	struct hmap thr;  /* file thread index -> index into threads */
	VEC(struct ni_thread) threads;
	struct hmap begin_of; /* handle -> index into begins */
	struct hmap end_of;   /* handle -> index into ends (pass 1) */
	VEC(struct ni_end) ends;
	VEC(struct ni_begin) begins;
	VEC(struct ni_bound) bounds;
	uint8_t *cls; /* per model string id: name class + 1, 0 unknown */
	size_t ncls;
	uint32_t async_thread; /* MODEL_NOIDX until needed */
	int has_step_ranges;
	int seen_end;
	int64_t max_ts;		 /* latest event time, INT64_MIN if none */
	uint64_t lost_process;	 /* LOST of NNST_THREAD_PROCESS */
	VEC(uint64_t) stops_raw; /* raw ts of the STOP events (pass 1) */
	VEC(int64_t) stops;	 /* the same in model time, sorted (pass 2) */
	struct ni_gpu *gpu;	 /* GPU records (nnst_gpu.c), NULL until one is read */
	struct nns_err *err;
};

/* Model string id of a file string id ("" for 0, a placeholder if never
 * defined); STRPOOL_NONE when out of memory. */
uint32_t ni_str(struct ni *x, uint32_t id);
/* State of thread index idx, created (placeholder tid) if new; NULL when
 * out of memory or over NI_MAX_THREADS. */
struct ni_thread *ni_thread(struct ni *x, uint32_t idx);
/* Raw timestamp -> model ns. */
int64_t ni_time(const struct ni *x, uint64_t ts);
/* CLOCK_MONOTONIC ns -> model ns (clamped like ni_time). */
int64_t ni_mono_time(const struct ni *x, int64_t mono_ns);
/* Sets diag.first_problem if still empty (printf-style). */
void ni_problem(struct ni *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* nnst_events.c */
/* Pass 1: notes the STOPs of an EVENTS chunk (window ends close ranges). */
int ni_events_scan(struct ni *x, const uint8_t *p, uint32_t len);
/* Before pass 2: STOP times in model time. */
int ni_events_prepare(struct ni *x);
int ni_events_chunk(struct ni *x, const uint8_t *p, uint32_t len);
/* After the last chunk: closes what is open, builds steps. */
int ni_events_finish(struct ni *x);

/* nnst_gpu.c: GPU and GPUCLOCK chunks (docs/FORMAT.md "GPU records") */
/* Pass 1: calibration points; DEVICE and EXTCORR records. */
int ni_gpuclock_chunk(struct ni *x, const uint8_t *p, uint32_t len);
int ni_gpu_scan(struct ni *x, const uint8_t *p, uint32_t len);
/* Before pass 2: the CUPTI clock -> trace clock line. */
int ni_gpu_prepare(struct ni *x);
/* Pass 2: the other records -> model rows. */
int ni_gpu_chunk(struct ni *x, const uint8_t *p, uint32_t len);
/* After the last chunk: memory counters, NCCL rank and algorithm metadata. */
int ni_gpu_finish(struct ni *x);
/* nnst_gpu_window.c: removes the added events (indices into model.events)
 * that fall outside the trace's active collection windows. */
int ni_gpu_keep_windows(struct ni *x, const uint32_t *added, size_t n);
void ni_gpu_release(struct ni *x);

#endif
