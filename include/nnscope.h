/*
 * nnscope.h - the only public C header of nnscope.
 *
 * 1. Version macros and status codes (every function returns 0 on success
 *    or a negative NNS_E* code).
 * 2. The collector API of libnnscope.so: a profiler created from options
 *    (a struct, a JSON string or the NNSCOPE_OPTIONS environment variable,
 *    which also accepts MindSpore's MS_PROFILER_OPTIONS keys), started and
 *    stopped at will or by a schedule, marking steps, and the event calls
 *    programs put in their hot loops: ranges, marks, counters, flows,
 *    memory events and data-queue samples.
 *
 * Cost: event calls take a raw TSC timestamp and store a 32-byte record in
 * a per-thread buffer: no lock, no allocation, no system call. When no
 * profiler is collecting, each costs one predictable branch. The library
 * never exits, aborts or blocks the host: when buffers are full, events are
 * dropped, counted, and the count is written to the trace. nns_create()
 * installs a flush for fatal signals that chains to the previous handlers,
 * and the library wraps exec and _exit to close the trace first.
 *
 * Threads: the event calls are safe from any thread; create/start/stop/
 * step/destroy may be called from any one thread at a time. One profiler
 * per process collects at a time (the one most recently started).
 *
 * Ownership: nns_create() returns a handle the caller frees with
 * nns_destroy(); strings passed in are copied.
 */
#ifndef NNSCOPE_H
#define NNSCOPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NNS_VERSION_MAJOR 0
#define NNS_VERSION_MINOR 2
#define NNS_VERSION_PATCH 0
#define NNS_VERSION_STRING "0.2.0"
#define NNS_VERSION_NUMBER (NNS_VERSION_MAJOR * 10000 + NNS_VERSION_MINOR * 100 + NNS_VERSION_PATCH)

#if defined(__GNUC__)
#define NNS_API __attribute__((visibility("default")))
#else
#define NNS_API
#endif

/* Status codes: 0 is success, everything else is negative. */
enum nns_status {
	NNS_OK = 0,
	NNS_ENOMEM = -1,   /* an allocation failed or a configured cap was hit */
	NNS_EIO = -2,	   /* reading or writing a file failed */
	NNS_EFORMAT = -3,  /* the input is malformed */
	NNS_EINVAL = -4,   /* a wrong argument or option */
	NNS_ETRUNC = -5,   /* the input ended early; what was read is kept */
	NNS_ENOTFOUND = -6 /* no such file, run, worker or span */
};

/* A short English description of a status code; never NULL. */
NNS_API const char *nns_strerror(int status);

/* ---- options --------------------------------------------------------------- */

enum nns_framework {
	NNS_FRAMEWORK_NONE = 0, /* no host_info CSV */
	NNS_FRAMEWORK_ALL,	/* host_info with time and memory */
	NNS_FRAMEWORK_TIME,
	NNS_FRAMEWORK_MEMORY
};

/*
 * Options. Initialise with nns_options_init(), then change fields.
 * ABI: fields are only ever added at the end; struct_size tells the library
 * which fields the caller knows.
 */
struct nns_options {
	size_t struct_size;	/* sizeof(struct nns_options), set by init */
	int start;		/* 1: collect from nns_create(); 0: from nns_start() (default 1) */
	char output_path[1024]; /* run directory, default "./data" */
	int op_time;		/* collect ranges (default 1) */
	int profile_memory;	/* collect memory events (default 0) */
	int profile_communication;    /* NCCL collectives (default 0; nnscope run: 1) */
	int data_process;	      /* collect data-queue samples (default 1) */
	int timeline_limit_mb;	      /* Chrome-trace export limit, MB (default 500) */
	int profile_framework;	      /* enum nns_framework (default NONE) */
	int sync_enable;	      /* must be 0: 1 is refused (docs/API.md) */
	int cpu_sampling_interval_ms; /* CPU/memory sampler period, 0 = off (default 1000) */
	/* schedule, as torch.profiler.schedule: after skip_first steps, cycles of
	 * wait (off), warmup (collected, discarded), active (kept); repeat = number
	 * of cycles, 0 = forever. All 0 = no schedule. */
	int sched_skip_first, sched_wait, sched_warmup, sched_active, sched_repeat;
	/* MindSpore StopAtStep: collect steps [start_step, stop_step], -1 = unset */
	long start_step, stop_step;
	size_t buffer_kb_per_thread; /* per-thread buffer (default 1024 KiB) */
	size_t max_buffer_mb;	     /* all buffers together (default 512 MiB) */
				     /* End of base ABI. */
};

NNS_API void nns_options_init(struct nns_options *o);
/* Applies a JSON object of options (MindSpore MS_PROFILER_OPTIONS keys plus
 * the field names above) on top of *o. On error returns NNS_EINVAL and
 * writes a one-line reason into err (may be NULL). */
NNS_API int nns_options_from_json(struct nns_options *o, const char *json, char *err,
				  size_t errlen);
/* Applies NNSCOPE_OPTIONS, else MS_PROFILER_OPTIONS, if set. */
NNS_API int nns_options_from_env(struct nns_options *o, char *err, size_t errlen);

/* ---- lifecycle --------------------------------------------------------------- */

typedef struct nns_profiler nns_profiler;

/* Creates a profiler writing under o->output_path (NULL: defaults plus the
 * environment). Starts collecting if o->start. */
NNS_API int nns_create(nns_profiler **out, const struct nns_options *o);
NNS_API int nns_start(nns_profiler *p);
NNS_API int nns_stop(nns_profiler *p);
/* Marks a step boundary (ends step N, begins N+1) and drives schedules. */
NNS_API int nns_step(nns_profiler *p);
/* Flushes, then analyses what was collected into <output_path>/analysis
 * with the `nnscope` program (found in $NNSCOPE_BIN, beside libnnscope.so,
 * or on PATH), so the collector never links the analyzer. Returns
 * NNS_ENOTFOUND when the program cannot be found. */
NNS_API int nns_analyse(nns_profiler *p);
/* Stops, flushes, closes the trace and frees p (NULL is a no-op). A
 * program that never calls it still gets a complete trace: the library
 * closes it at exit, before exec, at _exit() and on fatal signals, and
 * leaves p allocated (docs/API.md "Exit, exec, signals"). */
NNS_API void nns_destroy(nns_profiler *p);
/* The last error message of p, "" if none; valid until the next call.
 * With p NULL: why the last nns_create() failed. */
NNS_API const char *nns_last_error(const nns_profiler *p);
/* The profiler collecting now (the one most recently started), else the one
 * `nnscope run` created (LD_PRELOAD), else NULL: lets instrumented code mark
 * steps on a profiler it did not create. */
NNS_API nns_profiler *nns_current(void);
/* Metadata (rank, world_size, host, device properties, anything): copied. */
NNS_API int nns_set_metadata(nns_profiler *p, const char *key, const char *value);
/* Events not written so far: dropped because buffers were full, or
 * collected but not written after a write error (disk full...). */
NNS_API uint64_t nns_lost_events(const nns_profiler *p);

/* Starts GPU activity collection through CUPTI (kernels, copies, memsets,
 * CUDA API calls, synchronisation, device memory) into the current
 * profiler (docs/API.md "GPU collection"). `nnscope run` does it by
 * itself (CUDA_INJECTION64_PATH). NNS_OK, or NNS_ENOTFOUND (no libcupti),
 * NNS_EIO (CUPTI refused: another subscriber...) with the reason in err
 * (may be NULL) and in the META key "cupti". Idempotent. */
NNS_API int nns_cupti_enable(char *err, size_t errlen);

/* ---- events (hot path) --------------------------------------------------------- */

/* Interns a name once; the id is valid for the life of the process. */
NNS_API uint32_t nns_name(const char *name);

/* Nested ranges on the calling thread. */
NNS_API void nns_push(uint32_t name);
NNS_API void nns_pop(void);
/* Convenience: interns then pushes (slower: a hash lookup). */
NNS_API void nns_push_str(const char *name);
/* Ranges that may end on another thread: returns a handle for nns_end(). */
NNS_API uint64_t nns_begin(uint32_t name);
NNS_API void nns_end(uint64_t handle);
/* An instant event. */
NNS_API void nns_mark(uint32_t name);
/* A counter sample. */
NNS_API void nns_counter(uint32_t name, double value);
/* Flow endpoints linking two events: phase 's' start, 'f' finish. */
NNS_API void nns_flow(uint32_t name, uint64_t id, char phase);
/* Memory: device -1 = host; totals < 0 when unknown. */
NNS_API void nns_mem_alloc(const void *ptr, uint64_t bytes, int device, int64_t total_allocated,
			   int64_t total_reserved);
NNS_API void nns_mem_free(const void *ptr, uint64_t bytes, int device, int64_t total_allocated,
			  int64_t total_reserved);
/* A data-queue sample: the data-pipeline analysis input. */
NNS_API void nns_queue(uint32_t queue_name, uint32_t size, uint32_t capacity);

/* The state word the event calls test first: 0 while no profiler collects.
 * Read-only for programs; 16 words so that it owns a cache line. */
NNS_API extern uint32_t nns_hot_state[16];

/* Inline fast path: when nothing collects, these cost one load and one
 * predictable branch in the caller (no call), like NVTX's disabled path;
 * otherwise they call nns_push / nns_pop. */
#if defined(__GNUC__)
#define NNS_COLLECTING()                                                                           \
	__builtin_expect(__atomic_load_n(&nns_hot_state[0], __ATOMIC_RELAXED) != 0, 0)
#else
#define NNS_COLLECTING() (nns_hot_state[0] != 0)
#endif
#define NNS_PUSH(id) ((void)(NNS_COLLECTING() && (nns_push(id), 1)))
#define NNS_POP() ((void)(NNS_COLLECTING() && (nns_pop(), 1)))

/* RAII-less helper for C: NNS_RANGE(name) { ... } (do not leave the block
 * with break/return/goto: the range would stay open). The loop variable is
 * unique per use so that ranges nest without shadowing. */
#define NNS_CAT2_(a, b) a##b
#define NNS_CAT_(a, b) NNS_CAT2_(a, b)
#if defined(__COUNTER__)
#define NNS_RANGE(id) NNS_RANGE_(id, NNS_CAT_(nns_once_, __COUNTER__))
#else
#define NNS_RANGE(id) NNS_RANGE_(id, NNS_CAT_(nns_once_, __LINE__))
#endif
#define NNS_RANGE_(id, v) for (int v = (nns_push(id), 1); v; v = 0, nns_pop())

#ifdef __cplusplus
}
#endif

#endif /* NNSCOPE_H */
