/*
 * model.h - the in-memory trace every importer produces and every analysis
 * reads.
 *
 * One struct model holds one worker/span: its threads (pid, tid), duration
 * events, memory records, flow endpoints, counters, device properties and
 * metadata. Events are stored once in a flat array of small fixed-size rows
 * (no per-event malloc); names, shapes and call stacks are interned strings
 * (struct strpool); kernel launch parameters live in a side table indexed
 * by model_event.extra so host events stay small.
 *
 * Timestamps are int64 nanoseconds. Durations are >= 0.
 *
 * Ownership: the model owns everything reachable from it; model_release()
 * frees it all. Importers build a model with the model_add_* functions, then
 * call model_finalize(), which sorts events by (ts, -dur) and builds the
 * correlation indices analyses rely on. After finalize the model is
 * read-only and may be shared between threads.
 */
#ifndef NNS_MODEL_H
#define NNS_MODEL_H

#include "common/err.h"
#include "common/hmap.h"
#include "common/snapfile.h"
#include "common/strpool.h"
#include "common/vec.h"

#include <stdint.h>

struct fs_root; /* common/fs.h */

#define MODEL_NONE INT64_MIN /* absent integer field (ext_id, corr, ...) */
#define MODEL_NOIDX UINT32_MAX

/* Event categories, from Kineto's `cat` (case-insensitive) or nnscope's
 * own records. Old (PyTorch 1.x) and modern spellings map to the same kind. */
enum model_kind {
	MK_CPU_OP = 0,	    /* cpu_op, operator */
	MK_USER_ANNOTATION, /* user_annotation */
	MK_GPU_ANNOTATION,  /* gpu_user_annotation (GPU-side copy of a range) */
	MK_PYTHON,	    /* python */
	MK_PYTHON_FUNCTION, /* python_function (a module if py_module_id set) */
	MK_RUNTIME,	    /* runtime, cuda_runtime, *_runtime */
	MK_DRIVER,	    /* cuda_driver (cuLaunchKernel ...) */
	MK_KERNEL,	    /* kernel */
	MK_MEMCPY,	    /* memcpy, gpu_memcpy */
	MK_MEMSET,	    /* memset, gpu_memset */
	MK_TRACE,	    /* trace ("PyTorch Profiler (0)") */
	MK_SYNC,	    /* cuda_sync */
	MK_OTHER,	    /* any other complete event */
	MK_PROFILER_RANGE,  /* cuda_profiler_range: a CUPTI range-profiler range */
	MK__COUNT
};

/* Kineto's category text of a kind ("cpu_op", "kernel", "gpu_memcpy", ...;
 * "other" for anything out of range): what exports and the UI show. */
const char *model_kind_name(int kind);
/* The code (1..31) of an accelerator's own category name (lower case,
 * n bytes: "mtia_runtime", "mtia_ccp_events", "hip_runtime", ...), 0 when
 * it has none (CUDA's and the old names map to their kind's name). */
int model_src_cat_code(const char *lower, size_t n);

static inline int model_kind_is_device(int k)
{
	return k == MK_KERNEL || k == MK_MEMCPY || k == MK_MEMSET;
}

/* Kinds whose model_event.extra indexes model.dev_args (else op_args). */
static inline int model_kind_has_dev_args(int k)
{
	return model_kind_is_device(k) || k == MK_SYNC;
}

static inline int model_kind_is_launch(int k)
{
	return k == MK_RUNTIME || k == MK_DRIVER;
}

/* One complete ("X") event. 40 bytes. */
struct model_event {
	int64_t ts;  /* start, ns */
	int64_t dur; /* ns, >= 0 */
	/* "External id"/"external id" and "correlation", encoded in 32 bits
	 * (model_id_enc): read them with model_ext_id / model_corr, set them
	 * with model_event_ids. Real ids are small counters, so the row stays
	 * 40 bytes where two int64 made it 48. */
	uint32_t ext_id_enc;
	uint32_t corr_enc;
	uint32_t name;	 /* string id */
	uint32_t thread; /* index into model.threads */
	uint32_t extra;	 /* kernels/memcpy/memset: index into model.dev_args;
			  * host ops: index into model.op_args; else MODEL_NOIDX */
	uint8_t kind;	 /* enum model_kind */
	uint8_t flags;	 /* MODEL_EF_*, set by model_finalize */
	int16_t device;	 /* args.device for device events, else -1 */
};

/* model_event.flags, computed by model_finalize (model_index.c). */
enum model_class { MC_NONE = 0, MC_COMPUTE, MC_MEMORY, MC_COMM };
#define MODEL_EF_CLASS 3u   /* device events: enum model_class */
#define MODEL_EF_PARTIAL 4u /* starts inside a range of its thread, ends after it */
/* Bits 3-7, set by importers: the source's own category when it is not the
 * kind's Kineto/CUDA name (model_src_cat_code: "mtia_runtime", "hip_runtime",
 * ...), 0 else; exports write it back (model_event_cat). */
#define MODEL_EF_SRCCAT_SHIFT 3
#define MODEL_EF_SRCCAT (31u << MODEL_EF_SRCCAT_SHIFT)

/* The one kernel classifier (HTA's get_kernel_type, plus NCCL >= 2.19,
 * RCCL and MTIA names, and Ascend HCCL / MindSpore all-reduce stream
 * names): MC_NONE for non-device kinds. */
int model_class_of(int kind, const char *name);
/* "computation", "memory", "communication" (HTA's names), "none". */
const char *model_class_name(int c);

/* How launches and device events found their operator (model_index.c):
 *   1. the operator (a cpu_op that is not a ProfilerStep) its external id
 *      names, in the same process, unless that id is the launch's own
 *      correlation id (several Kineto versions write it there): tb_plugin's
 *      rule, which also places zero-length launches on an operator's edge;
 *   2. else the innermost operator of the launch's own thread whose range
 *      holds the launch (annotations such as nccl:all_reduce are not
 *      operators: their launches go to the operator around them);
 *   3. else none (unattributed).
 * A device event belongs to its launch's operator (correlation id, or an
 * ac2g flow: model.launch_of). */
struct model_attr {
	int64_t launches;		/* runtime/driver events */
	int64_t by_external_id;		/* rule 1 */
	int64_t by_enclosing;		/* rule 2 */
	int64_t unattributed;		/* rule 3 */
	int64_t device_events;		/* kernels, copies, sets */
	int64_t device_no_launch;	/* no launch by correlation id nor flow */
	int64_t device_unattributed;	/* launch found, but it belongs to no operator */
	int64_t device_ns;		/* their summed durations */
	int64_t device_unattributed_ns; /* of those without an operator (either way) */
};

/* Launch parameters of a device event (kernel, memcpy, memset). */
struct model_dev_args {
	int64_t stream;		/* -1 if absent */
	int64_t shared_mem;	/* bytes, -1 if absent */
	float blocks_per_sm;	/* -1 if absent */
	float occupancy;	/* est. achieved occupancy %, -1 if absent */
	int32_t regs;		/* registers per thread, -1 if absent */
	uint32_t grid;		/* string id of "[x, y, z]", 0 if absent */
	uint32_t block;		/* string id of "[x, y, z]", 0 if absent */
	int32_t comm_elem_size; /* (below, with comm_nelems; here it fills a hole) */
	int64_t bytes;		/* memcpy/memset bytes, -1 if absent */
	/* memcpy/memset: Kineto's "memory bandwidth (GB/s)" (bytes over the
	 * exact duration, where `dur` is rounded to us); 0 when absent or not
	 * > 0 (model_dev_args_init zeroes it). */
	double mem_bw;
	/* collective kernels (PyTorch >= 2.1 copies record_param_comms' args
	 * onto them): "In msg nelems" (0 if absent) and the size in bytes of
	 * one element of "dtype" ("Float" 4, "BFloat16" 2, ...; 0 if absent or
	 * unknown) */
	int64_t comm_nelems;
	/* cuda_sync events (Kineto >= 2.1): the stream and the cudaEventRecord
	 * correlation a "Stream Wait Event" / "Event Sync" waits on. */
	int64_t wait_stream; /* "wait_on_stream", -1 if absent */
	int64_t wait_corr;   /* "wait_on_cuda_event_record_corr_id", MODEL_NONE if absent */
};

/* Arguments of host operator events that analyses use. */
struct model_op_args {
	uint32_t input_dims; /* string id, canonical "[[2, 8, 5], [], []]", 0 if absent */
	uint32_t input_type; /* string id, canonical "['float', 'Int']" list, 0 if absent */
	uint32_t call_stack; /* string id, 0 if absent */
	/* "Python id", "Python parent id", "Python module id" (present => a
	 * module call), "Sequence number" and "Fwd thread id", MODEL_NONE if
	 * absent, encoded as event ids are (model_id_enc; read them with
	 * model_id_dec): small counters all, so 4 bytes each, not 8 */
	uint32_t py_id_enc;
	uint32_t py_parent_id_enc;
	uint32_t py_module_id_enc;
	uint32_t seq_enc;
	uint32_t fwd_tid_enc;
	/* collectives (record_param_comms, c10d / nccl ops): "In msg nelems"
	 * (0 if absent) and the byte size of one "dtype" element (0 if absent
	 * or unknown), as in model_dev_args */
	int64_t comm_nelems;
	int32_t comm_elem_size;
};

/* A thread row: pid and tid as strings ("25738", "stream 7", "Traces").
 * Numeric JSON ids are interned in their decimal text so that an event with
 * "tid": 25738 and one with "tid": "25738" land on the same thread. */
struct model_thread {
	uint32_t pid;  /* string id */
	uint32_t tid;  /* string id */
	uint32_t name; /* thread_name metadata, 0 if none */
};

/* A `[memory]` instant (ph "i", name "[memory]"). */
enum { MODEL_MEM_HAS_ADDR = 1, MODEL_MEM_HAS_TOTAL_ALLOC = 2, MODEL_MEM_HAS_TOTAL_RESERVED = 4 };
struct model_mem {
	int64_t ts; /* ns */
	int64_t addr;
	int64_t bytes; /* negative = free */
	int64_t total_allocated;
	int64_t total_reserved;
	uint32_t thread;
	int16_t device_type; /* 0 CPU, 1 CUDA, other ignored by analyses */
	int16_t device_id;
	uint8_t flags; /* MODEL_MEM_HAS_* */
};

/* A flow endpoint (ph "s"/"f"/"t"): cat "fwdbwd" or "ac2g". */
enum model_flow_kind { MF_FWDBWD = 0, MF_AC2G = 1, MF_OTHER = 2 };
struct model_flow {
	int64_t ts; /* ns */
	int64_t id;
	uint32_t thread;
	uint8_t kind; /* enum model_flow_kind */
	char ph;      /* 's', 'f' or 't' */
};

/* A counter sample (ph "C"), one per series value. */
struct model_counter {
	int64_t ts;
	double value;
	uint32_t name; /* "<event name>.<series key>" or the event name */
	uint32_t thread;
};

/* deviceProperties[i]. */
struct model_device {
	int32_t id;
	uint32_t name;	      /* string id */
	int64_t total_mem;    /* totalGlobalMem, bytes */
	int32_t major, minor; /* compute capability */
	int32_t num_sms;
	int32_t max_threads_per_sm;
	int32_t max_threads_per_block;
	int32_t regs_per_sm;
	int64_t shared_mem_per_sm;
	int32_t warp_size;
};

/* A category the importer does not know (its events are kept as MK_OTHER
 * host ranges and counted here so that nothing is dropped silently). */
#define MODEL_DIAG_CATS 16
struct model_diag_cat {
	char name[32]; /* truncated to 31 bytes */
	int64_t count;
};

/* Diagnostics an importer gathered while reading (skipped or odd input). */
struct model_diag {
	struct model_diag_cat unknown_cats[MODEL_DIAG_CATS]; /* first 16 distinct, by first use */
	int64_t unknown_cats_more; /* events of further unknown categories */
	int64_t events_skipped;	   /* malformed or unsupported events skipped */
	int64_t bytes_read;
	int truncated; /* the input ended early */
	char first_problem[NNS_ERR_MSG_MAX];
	int64_t events_lost;	  /* nnst: events the collector dropped (LOST chunks) */
	int64_t ranges_closed;	  /* nnst: ranges still open at the end, closed there */
	int64_t ranges_unmatched; /* nnst: POP/END without a matching PUSH/BEGIN */
	/* what the importer says about the input as a whole when it is odd but
	 * readable (a legacy format and what it lacks, events that no analysis
	 * can use): "<file>: ...", said as a warning; "" if nothing */
	char note[NNS_ERR_MSG_MAX];
	int64_t notes; /* odd input read without losing an event (a
			* repeated key, data or padding after the
			* document): how many, and the first one */
	char first_note[NNS_ERR_MSG_MAX];
};

/* ---- rows of nnscope's own traces (.nnst); other importers leave them empty */

/* A data-queue sample (nnst QUEUE event): the data-pipeline analysis input. */
struct model_queue {
	int64_t ts; /* ns */
	int64_t size;
	int64_t capacity; /* <= 0 unknown */
	uint32_t name;	  /* queue name, string id */
	uint32_t thread;  /* the thread that sampled it */
};

/* A CPU sample (nnst SAMPLES chunk). Utilizations in percent, as the
 * collector measured them (docs/FORMAT.md). */
enum model_sample_kind { MS_MACHINE = 1, MS_PROCESS = 2, MS_THREAD = 3 };
struct model_sample {
	int64_t ts;	       /* ns */
	int64_t tid;	       /* MS_THREAD: the thread's tid, else 0 */
	uint64_t ctx_switches; /* MS_MACHINE: since the previous sample */
	uint64_t rss_kb;       /* MS_PROCESS: VmRSS */
	float user, sys, idle, iowait;
	uint32_t running; /* MS_MACHINE: runnable processes */
	uint32_t thread;  /* MS_THREAD: index into threads, else MODEL_NOIDX */
	uint8_t kind;	  /* enum model_sample_kind */
};

/* An instant event (nnst MARK, START, STOP). */
struct model_instant {
	int64_t ts; /* ns */
	uint32_t name;
	uint32_t thread;
};

/* One row of a MindSpore host_info CSV (importers/hostinfo.h):
 * tid,pid,parent_pid,module_name,event,stage,level,start_end,custom_info,
 * memory_usage(kB),time_stamp(us). */
struct model_host {
	int64_t ts_us;	   /* time_stamp(us): steady clock (CLOCK_MONOTONIC) */
	int64_t memory_kb; /* VmRSS, 0 = not collected */
	int64_t tid, pid, parent_pid;
	uint32_t module, event, stage, custom; /* string ids */
	int8_t level;			       /* 0 framework developers, 1 users */
	int8_t start_end;		       /* 0 start, 1 end, 2 instant */
};

/* A metadata key/value pair (nnst META chunk), string ids. */
struct model_meta {
	uint32_t key, value;
};

struct model {
	struct strpool strings;
	VEC(struct model_thread) threads;
	VEC(struct model_event) events;
	VEC(struct model_dev_args) dev_args;
	VEC(struct model_op_args) op_args;
	VEC(struct model_mem) mems;
	VEC(struct model_flow) flows;
	VEC(struct model_counter) counters;
	VEC(struct model_device) devices;

	/* metadata */
	int64_t schema_version;	 /* -1 if absent */
	int64_t base_time_ns;	 /* baseTimeNanoseconds, 0 if absent */
	int is_lightning;	 /* "Framework": "pytorch-lightning" */
	int64_t dist_rank;	 /* distributedInfo.rank, -1 if absent */
	int64_t dist_world_size; /* -1 if absent */
	uint32_t dist_backend;	 /* string id, 0 if absent */
	uint32_t worker;	 /* worker name (from the file name), 0 if unset */
	uint32_t span;		 /* span name, 0 if unset */
	struct model_diag diag;

	/* the ids of model_event.ext_id_enc / corr_enc that 31 bits do not
	 * hold (negative or >= 2^31): model_id_enc */
	VEC(int64_t) wide_ids;

	/* thread lookup while building: (pid,tid) -> thread index */
	struct hmap thread_ix;
	/* while building: events[0, sorted_n) are in model_finalize's order
	 * (model_sort_events); model_merge then merges rather than appends,
	 * and model_sort_events does nothing when sorted_n == events.n: code
	 * that changes an event's ts or dur must set sorted_n to 0 */
	size_t sorted_n;

	/* built by model_finalize(), all indices into events.v */
	int finalized;
	uint32_t *launch_of;	 /* per event: for device events the index of
				  * the runtime/driver event with the same corr,
				  * MODEL_NOIDX if none; for others MODEL_NOIDX
				  * (read it with model_launch_of) */
	int64_t min_ts, max_end; /* over all events and memory records */
	/* the index (model_index.c), per event: the innermost event of the
	 * same thread holding it (MODEL_NOIDX: none), its nesting depth, the
	 * operator a launch or device event belongs to (MODEL_NOIDX: none);
	 * per thread: numeric pid and tid (-1 when not a number) */
	uint32_t *parent;
	uint16_t *depth;
	uint32_t *op_of;
	/* MODEL_KB(kind) for each kind some event has: a pass whose kinds are
	 * absent skips its walk over the events */
	uint32_t kinds;
	/* launch_of, parent and op_of hold ~index (so 0 for MODEL_NOIDX) in
	 * zeroed arrays, as depth holds 0 for the top: an event without
	 * links never touches their pages, and a trace of plain ranges costs
	 * none of this memory. Read them with model_launch_of, model_parent
	 * and model_op_of. */
	int64_t *thread_pid, *thread_tid;
	struct model_attr attr;

	/* nnscope traces (.nnst); empty for other inputs. Sorted by ts by
	 * model_finalize (stable). */
	VEC(struct model_queue) queues;
	VEC(struct model_sample) samples;
	VEC(struct model_instant) instants;
	VEC(struct model_meta) meta; /* in input order; a key may repeat */
	int64_t pid;		     /* the traced process, -1 if unknown */
	int64_t mono_offset_ns;	     /* model ts = CLOCK_MONOTONIC ns + this; MODEL_NONE
				      * when the input's clock is unknown */
	VEC(struct model_host) host; /* host_info CSV rows, file order (not sorted) */
	/* where the files beside the trace (MindSpore's, host_info CSVs) may
	 * be read: NULL anywhere, else beneath this root (common/fs.h, the
	 * server's logdir); borrowed, set by load_trace */
	const struct fs_root *root;
	/* a model read from a snapshot (model_snap_read): the mapped file its
	 * arrays point into (model_release unmaps it, frees the rest); else
	 * empty */
	struct snap_map map;
};

int model_init(struct model *m);
void model_release(struct model *m);

#define MODEL_KB(kind) (1u << (kind))
#define MODEL_KB_LAUNCH (MODEL_KB(MK_RUNTIME) | MODEL_KB(MK_DRIVER))
#define MODEL_KB_DEVICE (MODEL_KB(MK_KERNEL) | MODEL_KB(MK_MEMCPY) | MODEL_KB(MK_MEMSET))

/* The index's links of event i (struct model: stored complemented). */
static inline uint32_t model_launch_of(const struct model *m, size_t i)
{
	return m->launch_of ? ~m->launch_of[i] : MODEL_NOIDX;
}
static inline uint32_t model_parent(const struct model *m, size_t i)
{
	return ~m->parent[i];
}
static inline uint32_t model_op_of(const struct model *m, size_t i)
{
	return ~m->op_of[i];
}

/* Interning helpers: STRPOOL_NONE on failure (over cap / OOM). */
static inline uint32_t model_intern(struct model *m, const char *s, size_t n)
{
	return strpool_intern(&m->strings, s, n);
}
static inline const char *model_str(const struct model *m, uint32_t id)
{
	return strpool_get(&m->strings, id);
}

/* An event id (external id, correlation) in 32 bits: MODEL_ID_NONE for
 * MODEL_NONE, a value in [0, 2^31) as itself, any other value as
 * MODEL_ID_WIDE | its index in m->wide_ids (which never reaches
 * 2^31 - 1, so MODEL_ID_NONE stays apart). */
#define MODEL_ID_NONE UINT32_MAX
#define MODEL_ID_WIDE 0x80000000u
static inline int64_t model_id_dec(const struct model *m, uint32_t enc)
{
	if (enc < MODEL_ID_WIDE)
		return enc;
	enc &= ~MODEL_ID_WIDE;
	/* (a row mapped from a damaged snapshot reads as absent) */
	return enc < m->wide_ids.n ? m->wide_ids.v[enc] : MODEL_NONE;
}
static inline int64_t model_ext_id(const struct model *m, const struct model_event *e)
{
	return model_id_dec(m, e->ext_id_enc);
}
static inline int64_t model_corr(const struct model *m, const struct model_event *e)
{
	return model_id_dec(m, e->corr_enc);
}
/* Encodes id (a wide one is added to m->wide_ids): 0, or NNS_ENOMEM. */
int model_id_enc(struct model *m, int64_t id, uint32_t *enc);
/* Sets e's external id and correlation (MODEL_NONE: absent): 0, or
 * NNS_ENOMEM with e unchanged. */
int model_event_ids(struct model *m, struct model_event *e, int64_t ext_id, int64_t corr);

/* Returns the index of thread (pid, tid) (string ids), adding it if new;
 * MODEL_NOIDX on allocation failure. */
uint32_t model_thread(struct model *m, uint32_t pid, uint32_t tid);

/* Times are clamped to [-2^60, 2^62 - 2^60] ns (1933..2079 for epoch
 * clocks) and durations to 2^62 - 1, so that neither ts + dur nor any
 * difference of two such instants can overflow in an analysis. Importers
 * that can tell an event beyond them skip it and say so. */
#define MODEL_TIME_MIN (-((int64_t)1 << 60))
#define MODEL_TIME_MAX (((int64_t)1 << 62) - ((int64_t)1 << 60))
#define MODEL_DUR_MAX (((int64_t)1 << 62) - 1)

/* Appends rows; each returns the new row's index or a negative NNS_E*. */
int64_t model_add_event(struct model *m, const struct model_event *e);
int64_t model_add_dev_args(struct model *m, const struct model_dev_args *a);
int64_t model_add_op_args(struct model *m, const struct model_op_args *a);
int model_add_mem(struct model *m, const struct model_mem *r);
int model_add_flow(struct model *m, const struct model_flow *f);
int model_add_counter(struct model *m, const struct model_counter *c);
int model_add_device(struct model *m, const struct model_device *d);
int model_add_queue(struct model *m, const struct model_queue *q);
int model_add_sample(struct model *m, const struct model_sample *s);
int model_add_instant(struct model *m, const struct model_instant *i);
int model_add_host(struct model *m, const struct model_host *h);
/* Adds key=value (interned); also sets dist_rank / dist_world_size for the
 * keys "rank" and "world_size" when they hold integers. */
int model_add_meta(struct model *m, const char *key, const char *value);
/* The last value of key, or NULL. */
const char *model_meta_get(const struct model *m, const char *key);

/* The bytes m's rows hold: every array's used rows (not its spare
 * capacity, which is never touched and so costs no memory), the strings
 * with their per-string bookkeeping, the thread map and, once finalized,
 * the index. The importers' memory budget (kineto.h) is measured in it. */
size_t model_mem_bytes(const struct model *m);

/* Counts one event of the unknown category name[0..n) in d. */
void model_diag_count_cat(struct model_diag *d, const char *name, size_t n);
/* Adds src's unknown-category counts to dst's. */
void model_diag_add_cats(struct model_diag *dst, const struct model_diag *src);

/* Defaults for optional rows. */
void model_dev_args_init(struct model_dev_args *a);
void model_op_args_init(struct model_op_args *a);
void model_event_init(struct model_event *e);

/* Moves everything from src into dst, remapping string and thread ids;
 * src is left empty but valid. Used to join per-thread partial parses:
 * call in input order so that event order is preserved. When both models'
 * events are sorted (model_sort_events), they are merged in that order,
 * in one pass, instead of appended. */
int model_merge(struct model *dst, struct model *src, struct nns_err *err);

/* Sorts the events of a model being built by (ts, -dur, input order), as
 * model_finalize does: a parser thread sorts its chunk while the others
 * still parse, and model_finalize then only merges the sorted chunks
 * model_merge joined. 0 or NNS_ENOMEM (the events are then left as
 * they were). */
int model_sort_events(struct model *m);

/* Sorts events by (ts, -dur, input order), memory records and flows by ts,
 * queues, samples and instants by ts (stable), and builds launch_of. Must be called once, after all
 * model_add_*. */
int model_finalize(struct model *m, struct nns_err *err);
/* Undoes model_finalize's index (not its sort) so that an importer that
 * loaded a finalized model can change event kinds or add rows and then
 * call model_finalize again (a MindSpore timeline classified by its pids,
 * with the steps of its step trace). A model not finalized is left as is. */
void model_reopen(struct model *m);

/* Cuts a finalized model down to [t0, t1] ns (model_window.c): host events
 * overlapping it, device events with their launch (or overlapping it when
 * they have none), rows whose time falls inside; then finalizes it again.
 * NNS_OK, NNS_EINVAL (not finalized, t1 < t0) or NNS_ENOMEM. */
int model_keep_window(struct model *m, int64_t t0, int64_t t1, struct nns_err *err);

/* ---- the index, after model_finalize (model_index.c) ---- */

/* The category to write for event ev: the source's own (model_src_cat_code)
 * or its kind's name. */
const char *model_event_cat(const struct model *m, uint32_t ev);
static inline int model_event_class(const struct model *m, uint32_t ev)
{
	return m->events.v[ev].flags & MODEL_EF_CLASS;
}
static inline int64_t model_thread_pid(const struct model *m, uint32_t thread)
{
	return m->thread_pid[thread];
}
static inline int64_t model_thread_tid(const struct model *m, uint32_t thread)
{
	return m->thread_tid[thread];
}
/* 1 for an operator: a cpu_op that is not a ProfilerStep range. */
int model_is_operator(const struct model *m, uint32_t ev);
/* The device of a device event or GPU annotation (args.device, else the
 * numeric pid Kineto files it under); the event's own device field (-1)
 * for host events. */
int model_event_device(const struct model *m, uint32_t ev);
/* The stream of a device event, GPU annotation or sync event (args.stream,
 * else the numeric tid Kineto files it under, "stream 7" too); -1 else. */
int64_t model_event_stream(const struct model *m, uint32_t ev);
/* Builds the index (model_finalize calls it); NNS_OK or NNS_ENOMEM. In two
 * halves: model_index_nest (kernel classes, numeric thread ids, nesting:
 * reads neither correlation ids nor launch_of, so it runs while another
 * thread links the launches) and model_index_attribute (the operator of
 * each launch and device event: after launch_of). */
int model_index_build(struct model *m);
int model_index_nest(struct model *m);
int model_index_attribute(struct model *m);
void model_index_release(struct model *m);

/* ---- snapshots (model_snap.c): a finalized model on disk ----
 * A snapshot holds every row, string and index array of a finalized model
 * in a section file (common/snapfile.h). Read back, the model's arrays
 * point into the mapped file (nothing is copied but the strings, which are
 * interned again in id order) and it is read-only like any finalized
 * model: it must not be given new rows, reopened or cut to a window. */

struct snapw;
struct snapr;
/* The layout signature of snapshots this build writes: its struct sizes
 * and the snapshot's own version (readers refuse any other). */
uint64_t model_snap_sig(void);
/* Adds m's sections to w (m finalized; failures are kept in w). */
void model_snap_write(const struct model *m, struct snapw *w);
/* Reads a model from r's next sections into m (uninitialized). m takes r's
 * mapping whatever the outcome. NNS_OK, or NNS_EFORMAT / NNS_ENOMEM with
 * m released. */
int model_snap_read(struct model *m, struct snapr *r, struct nns_err *err);

/* The device row with deviceProperties id `id`, or NULL. */
const struct model_device *model_device_by_id(const struct model *m, int id);

#endif
