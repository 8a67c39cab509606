/*
 * analysis.h - results of every per-worker analysis, and the entry points.
 *
 * Analyses are pure functions model -> result structs; no I/O. Times are
 * int64 nanoseconds (model units) unless a field says otherwise; outputs
 * convert to microseconds. Definitions follow tb_plugin (reference
 * kineto-tbplugin.md §1) except where documented as deliberate fixes.
 *
 * Ownership: struct an_profile owns every array reachable from it;
 * an_profile_release() frees them. The profile keeps a pointer to the model
 * it was computed from; the model must outlive the profile.
 */
#ifndef NNS_ANALYSIS_H
#define NNS_ANALYSIS_H

#include "analysis/intervals.h"
#include "model/model.h"

#include <pthread.h>

/* Step-time roles, in tb_plugin's priority order. */
enum an_role {
	AN_KERNEL = 0,
	AN_MEMCPY,
	AN_MEMSET,
	AN_COMM,
	AN_RUNTIME,
	AN_DATALOADER,
	AN_CPUOP,
	AN_OTHER,
	AN_NROLES
};
extern const char *const an_role_names[AN_NROLES]; /* "Kernel" ... "Other" */
extern const char *const an_role_keys[AN_NROLES];  /* "kernel_us" ... "other_us" */

/* ---- steps and breakdown (steps.c, breakdown.c) --------------------------- */

struct an_step {
	char name[32];		      /* "5", or "0" when the trace has no steps */
	int64_t host_start, host_end; /* the ProfilerStep range on the CPU */
	int64_t start, end;	      /* after device adjustment */
	int64_t cost[AN_NROLES];
	int64_t device_nodes; /* device events launched inside the host range */
};

struct an_overview {
	VEC(struct an_step) steps;
	double avg[AN_NROLES]; /* ns */
	double avg_total;      /* ns */
	int has_runtime, has_kernel, has_memcpy_or_memset, has_communication;
	int steps_dropped;	       /* trailing steps removed (tb_plugin tail rule) */
	struct iv_set role[AN_NROLES]; /* merged role intervals (before priority) */
};

/* ---- GPU summary (gpu.c) --------------------------------------------------- */

struct an_point {
	int64_t ts;
	double value;
};

struct an_range_value {
	int64_t start, end;
	double value;
};

struct an_gpu {
	int id;				      /* kernel args.device */
	double utilization;		      /* 0..1 */
	double sm_efficiency;		      /* 0..1, <0 if no kernel has blocks per SM */
	double achieved_occupancy;	      /* percent, <0 if no kernel reports it */
	double tensor_core_ratio;	      /* 0..1, of kernels launched by operators;
					       * -1 unknown (AN_TC_NONE) */
	int64_t kernel_time;		      /* merged kernel busy time in the window */
	VEC(struct an_point) util_buckets;    /* (bucket start, util), then (end, 0) */
	VEC(struct an_range_value) sm_ranges; /* est. SM efficiency per interval */
	VEC(struct an_point)
	sm_buckets; /* est. SM efficiency averaged over the
		     * util_buckets' buckets (same starts) */
};

/* ---- operator tree (optree.c) --------------------------------------------- */

enum an_node_type {
	AN_NODE_ROOT = 0,
	AN_NODE_OP,   /* operator: counted in the operator view */
	AN_NODE_STEP, /* ProfilerStep#N */
	AN_NODE_DATALOADER,
	AN_NODE_OPTIMIZER,
	AN_NODE_MODULE,	  /* python_function with Python module id */
	AN_NODE_PYTHON,	  /* python / python_function without module id */
	AN_NODE_COMM,	  /* nccl:* / gloo:* user annotation */
	AN_NODE_BACKWARD, /* synthetic "<module>.backward" */
	AN_NODE_OTHER	  /* DataParallel.forward etc.: in the tree, not in tables */
};

struct an_node {
	uint32_t ev;	 /* event index, MODEL_NOIDX for roots/synthetic */
	uint32_t parent; /* node index, MODEL_NOIDX for roots */
	uint32_t first_child, next_sibling, last_child;
	uint32_t first_rt; /* index into optree.rt_links, MODEL_NOIDX if none */
	uint32_t thread;   /* thread index */
	uint32_t name;	   /* string id (synthetic nodes have their own) */
	int64_t start, end;
	int64_t host_self, host_total;
	int64_t dev_self, dev_total;
	int64_t tc_self, tc_total; /* device time of tensor-core kernels */
	uint8_t type;		   /* enum an_node_type */
	uint8_t tc_eligible;
};

/* Runtime/driver launches owned by a node, as a linked list. */
struct an_rt_link {
	uint32_t ev;   /* runtime/driver event index */
	uint32_t next; /* next link of the same node, MODEL_NOIDX at end */
};

/* How launches and device events found their operator (the model's rules,
 * model_attr; optree.c adds tb_plugin's thread root for external id 0). */
struct an_attribution {
	int64_t launches;		/* runtime/driver events */
	int64_t by_external_id;		/* rule 1: the external id names an operator */
	int64_t by_enclosing;		/* rule 2: innermost enclosing operator */
	int64_t by_thread_root;		/* external id 0, no operator: the thread root */
	int64_t unattributed;		/* none of them */
	int64_t device_events;		/* kernels, copies, sets */
	int64_t device_no_launch;	/* no launch by correlation id nor ac2g flow */
	int64_t device_unattributed;	/* launch found, but it belongs to no operator */
	int64_t device_ns;		/* summed duration of the device events */
	int64_t device_unattributed_ns; /* of those in no operator (no launch or none) */
};

struct an_optree {
	VEC(struct an_node) nodes;
	VEC(struct an_rt_link) rt_links;
	VEC(uint32_t) roots;	  /* one root node per thread that has nodes */
	uint32_t *owner;	  /* per event: the node that owns the event (ops:
				   * their node; runtimes: the node they were
				   * attached to; device events: their launcher's
				   * node); MODEL_NOIDX if none */
	int64_t dropped_overlaps; /* nodes dropped for partial overlap */
	int64_t negative_self;	  /* host self times clamped at 0 (overlaps) */
	int64_t unmatched_runtimes;
	struct an_attribution attr;
};

/* ---- operators (operators.c) ---------------------------------------------- */

struct an_op_row {
	uint32_t name;
	uint32_t input_shape; /* string id; 0 in by_name */
	uint32_t call_stack;  /* string id; 0 unless grouped by stack */
	int64_t calls;
	int64_t host_self, host_total, dev_self, dev_total;
	int64_t tc_self, tc_total;
	int tc_eligible;
	int has_call_stack;
};

struct an_ops {
	VEC(struct an_op_row) by_name;
	VEC(struct an_op_row) by_name_shape;
	VEC(struct an_op_row) by_name_stack; /* name + call stack */
	VEC(struct an_op_row) by_name_shape_stack;
	int sort_by_device; /* rows sorted by device self (GPU data) or host self */
};

/* ---- kernels (kernels.c, tensorcore.c) ------------------------------------ */

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

/* ---- memory (memory.c) ---------------------------------------------------- */

struct an_mem_op_row {
	uint32_t name;
	int64_t calls;
	int64_t size_increase, self_size_increase;
	int64_t alloc_count, self_alloc_count;
	int64_t alloc_size, self_alloc_size;
};

struct an_mem_point {
	int64_t ts; /* ns, absolute */
	int64_t allocated, reserved;
};

struct an_mem_event {
	uint32_t op; /* string id of the allocating op, 0 unknown; label: an_mem_event_label */
	int64_t addr;
	int64_t size;
	int64_t alloc_ts, free_ts; /* MODEL_NONE when unpaired */
	uint32_t parent_op;	   /* when op is aten::empty*: the enclosing op's name
				    * (string id), shown as "<parent> (<op>)"; else 0 */
};

/* Writes the tb_plugin label of an event's op ("<unknown>", "op" or
 * "<parent> (aten::empty...)") into buf; returns snprintf's result. */
int an_mem_event_label(const struct model *m, const struct an_mem_event *e, char *buf, size_t n);

struct an_mem_device {
	char name[16]; /* "CPU", "GPU0", ... */
	int device_type, device_id;
	int64_t peak_allocated; /* max Total Allocated, -1 if no totals */
	int64_t records;	/* [memory] records (allocations and frees), with or
				 * without an address: old traces have none, so
				 * `events` (paired by address) stays empty */
	VEC(struct an_mem_op_row) ops;
	VEC(struct an_mem_point) curve; /* down-sampled, peak kept */
	VEC(struct an_mem_event) events;
};

struct an_memory {
	VEC(struct an_mem_device) devices;
};

/* ---- modules (modules.c) -------------------------------------------------- */

struct an_module_row {
	uint32_t name;
	int64_t module_id;
	uint32_t parent; /* row index of the parent module, MODEL_NOIDX at top */
	int64_t occurrences;
	int64_t operators;
	int64_t host_self, host_total, dev_self, dev_total;
	double avg_duration; /* ns */
	int backward;	     /* 1: synthetic "<name>.backward" row built from
			      * fwdbwd flows (tb_plugin BackwardNode); name is
			      * the forward module's string id, so display it
			      * with an_module_name() */
};

struct an_modules {
	VEC(struct an_module_row) rows;
};

/* A module row's display name: its name without tb_plugin's "nn.Module: "
 * prefix (a pointer into the model's string). */
const char *an_module_label(const struct model *m, const struct an_module_row *r);
/* Writes a row's name into buf: an_module_label() when strip is non-zero,
 * else the full name, followed by ".backward" for backward rows. Returns
 * snprintf's result. */
int an_module_name(const struct model *m, const struct an_module_row *r, int strip, char *buf,
		   size_t n);

/* ---- advice (advice.c) ---------------------------------------------------- */

struct an_advice_item {
	char id[32]; /* "dataloader", "ddp", "nccl", "comm", "gpu_util", "amp", "memory" */
	char *text;  /* owned */
};

struct an_advice {
	VEC(struct an_advice_item) items;
};

/* ---- communication nodes (per worker, used by distributed.c) -------------- */

struct an_comm_node {
	uint32_t ev; /* the nccl:/gloo: op event */
	uint32_t name;
	int step;		       /* index into overview.steps, -1 if none */
	uint32_t first_range, nranges; /* into an_profile.comm_ranges */
	int64_t bytes;		       /* from input dims and types */
};

/* ---- data pipeline (datapipe.c) ------------------------------------------- */

/* MindInsight's DEVICE_QUEUE_EMPTY_WARNING_THRESHOLD. */
#define AN_DP_EMPTY_WARNING_THRESHOLD 0.3

/* A point of a queue's down-sampled series: a bucket of samples. */
struct an_queue_point {
	int64_t ts; /* first sample of the bucket, ns */
	double avg; /* mean size over the bucket */
	int64_t min, max;
};

struct an_queue {
	uint32_t name; /* string id */
	int64_t samples;
	double avg_size;
	int64_t max_size;
	int64_t capacity;		   /* largest capacity reported, 0 if never */
	double utilization;		   /* avg_size / capacity, -1 when capacity unknown */
	int64_t empty_count, full_count;   /* size == 0; size >= capacity > 0 */
	double empty_ratio, full_ratio;	   /* over samples */
	int consumer;			   /* the queue the training loop takes from */
	VEC(struct an_queue_point) series; /* at most AN_DP_SERIES_MAX points */
};
#define AN_DP_SERIES_MAX 1000

/* How much of a step waited for data. */
struct an_dp_step {
	char name[32];
	int64_t start, end;		/* the step's host range */
	int64_t dataloader;		/* DataLoader ranges inside it (merged) */
	int64_t queue_empty;		/* time the consumer queue stayed empty inside it
					 * (each sample's size held until the next one) */
	int64_t samples, empty_samples; /* consumer queue samples inside it */
	int64_t wait;			/* dataloader when the trace has DataLoader ranges, else
					 * queue_empty */
};

/* A per-queue (or pipeline) finding, MindSpore BottleneckAnalyzer style. */
struct an_dp_finding {
	uint32_t queue; /* string id, 0 for the whole pipeline */
	char kind[24];	/* "empty", "low_utilization", "in_out_gap", "full" */
	char *text;	/* owned */
};

struct an_datapipe {
	VEC(struct an_queue) queues;  /* by name */
	int consumer;		      /* index into queues, -1 if none */
	VEC(struct an_dp_step) steps; /* one per overview step */
	int has_dataloader;	      /* the trace has DataLoader ranges */
	/* MindInsight analyse_queue_summary on the consumer queue */
	char verdict[24]; /* "data_process" (warning), "normal", "no_data" */
	int warning;	  /* verdict is a warning */
	int64_t empty_count, full_count, total_count;
	double empty_ratio;
	double wait_ratio; /* sum of step waits / sum of step times, 0..1 */
	VEC(struct an_dp_finding) findings;
	char *recommendation; /* owned; the overview advice text, NULL if none */
};

/* ---- CPU utilization (cpuutil.c) ------------------------------------------ */

/* Mean of utilization samples, percent. */
struct an_cpu_avg {
	int64_t samples;
	double user, sys, idle, iowait;
};

struct an_cpu_point {
	int64_t ts; /* ns */
	float user, sys, idle, iowait;
};
#define AN_CPU_SERIES_MAX 2000

struct an_cpu_step {
	char name[32];
	struct an_cpu_avg machine, process;
};

struct an_cpu_thread {
	uint32_t thread; /* index into model.threads */
	int64_t tid;
	uint32_t name; /* thread name, string id, 0 if none */
	struct an_cpu_avg avg;
};

/* Threads grouped by name: a pipeline stage (e.g. the DataLoader workers). */
struct an_cpu_stage {
	uint32_t name; /* string id ("" for unnamed threads) */
	int threads;
	double user, sys;  /* sum of its threads' averages */
	double per_thread; /* (user + sys) / threads */
	char *advice;	   /* owned, NULL if none */
};

struct an_cpu {
	struct an_cpu_avg machine, process; /* over all samples */
	double running_avg;		    /* machine: runnable processes */
	uint64_t ctx_switches;		    /* machine: total */
	uint64_t rss_peak_kb;		    /* process */
	uint64_t machine_mem_peak_kb;	    /* machine: memory in use (MemTotal -
					     * MemAvailable) */
	VEC(struct an_cpu_point) machine_series;
	VEC(struct an_cpu_point) process_series;
	VEC(struct an_cpu_step) steps;	   /* one per overview step */
	struct an_cpu_step before;	   /* samples before the first step (MindInsight's
					    * step 0); samples == 0 when none */
	VEC(struct an_cpu_thread) threads; /* by busy time, descending */
	VEC(struct an_cpu_stage) stages;
	char *recommendation; /* owned; overview advice text, NULL if none */
};

/* ---- host info (hostinfo.c) ----------------------------------------------- */

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

/* ---- step trace (steptrace.c) -------------------------------------------- */

/* MindInsight's step trace of one overview step: iteration interval (wait
 * before the first operator that is not data loading), FP+BP (to the end of
 * the last backward operator or its device work) and tail. Each >= 0;
 * iteration_interval + fp_bp + tail == end - start. */
struct an_steptrace_row {
	char name[32];
	int64_t start, end; /* the overview step's range (after device adjustment) */
	int64_t iteration_interval, fp_bp, tail;
};

struct an_steptrace {
	/* one row per overview step */
	VEC(struct an_steptrace_row) steps;
	double avg_interval, avg_fp_bp, avg_tail, avg_total; /* means, ns */
};

/* ---- the passes ----------------------------------------------------------- */

/* Every per-worker analysis is a pass of profile.c's table, which names
 * what each needs (the table is the order of truth: a pass comes after its
 * needs). The first AN_PASS_NBASE are the profile proper, all run by
 * an_profile_compute; the others (HTA's) run when a writer first needs
 * them, and their results live in p->hta (analysis/an_hta.h). */
enum an_pass {
	AN_PASS_STEPS = 0,     /* overview.steps (steps.c) */
	AN_PASS_OPTREE,	       /* tree (optree.c) */
	AN_PASS_BREAKDOWN,     /* overview costs, roles (breakdown.c) */
	AN_PASS_COMM,	       /* comm_nodes, comm_ranges (comm.c) */
	AN_PASS_OPS,	       /* ops (operators.c) */
	AN_PASS_KERNELS,       /* kernels, tc_support, tc_ev (kernels.c) */
	AN_PASS_GPU,	       /* gpus (gpu.c) */
	AN_PASS_MEMORY,	       /* memory (memory.c) */
	AN_PASS_MODULES,       /* modules (modules.c) */
	AN_PASS_DATAPIPE,      /* datapipe (datapipe.c) */
	AN_PASS_CPU,	       /* cpu (cpuutil.c) */
	AN_PASS_HOSTINFO,      /* hostinfo (hostinfo.c) */
	AN_PASS_STEPTRACE,     /* steptrace (steptrace.c) */
	AN_PASS_ADVICE,	       /* advice, usage flags (advice.c) */
	AN_PASS_TEMPORAL,      /* hta->temporal (hta_temporal.c) */
	AN_PASS_IDLE,	       /* hta->idle (hta_idle.c) */
	AN_PASS_QUEUE,	       /* hta->queue (hta_queue.c) */
	AN_PASS_MEMBW,	       /* hta->membw (hta_membw.c) */
	AN_PASS_LAUNCHES,      /* hta->launches (hta_launches.c) */
	AN_PASS_ANNOTATIONS,   /* hta->annotations (hta_annotations.c) */
	AN_PASS_SEQUENCES,     /* hta->sequences (hta_sequences.c) */
	AN_PASS_CRITPATH,      /* hta->critpath: of the first step (hta_critpath.c) */
	AN_PASS_CRITPATH_STEP, /* hta->critpath_step: of opts.critpath_step */
	AN_PASS__N
};
#define AN_PASS_NBASE (AN_PASS_ADVICE + 1)

struct an_profile;

/* A row of the pass table. */
struct an_pass_def {
	const char *name; /* "steps", "optree" ... */
	int (*run)(struct an_profile *p, struct nns_err *err);
	uint32_t needs; /* bit (1u << pass) per pass it reads */
};
extern const struct an_pass_def an_passes[AN_PASS__N];

/* Options of the passes: set them before the pass's first need. */
struct an_opts {
	const char *critpath_step; /* AN_PASS_CRITPATH_STEP's step ("5" or
				    * "ProfilerStep#5"); not owned, kept
				    * alive by the caller */
};

/* The pass cache of a profile (profile.c): a pass runs once, ok or not,
 * and a failed one answers its first error again. */
struct an_pass_cache {
	pthread_mutex_t lock;	   /* held while a pass runs (the server's threads
				    * share a profile) */
	uint32_t done;		   /* bit per pass that ran */
	int rc[AN_PASS__N];	   /* its status */
	char *msg[AN_PASS__N];	   /* owned: its error message, NULL if none */
	unsigned runs[AN_PASS__N]; /* times it ran (tests: 0 or 1) */
};

/* ---- the whole profile of one worker/span --------------------------------- */

struct an_hta; /* HTA's results, analysis/an_hta.h */

struct an_profile {
	const struct model *m;
	struct an_overview overview;
	VEC(struct an_gpu) gpus;
	struct an_optree tree;
	struct an_ops ops;
	struct an_kernels kernels;
	struct an_memory memory;
	struct an_modules modules;
	struct an_advice advice;
	VEC(struct an_comm_node) comm_nodes;
	VEC(struct iv) comm_ranges;
	double tc_eligible_ops_kernel_ratio;
	int tc_support;		     /* an_tc_support(m, -1), set by an_kernels_compute */
	struct an_tc_evidence tc_ev; /* its evidence, scanned once there */
	int use_dp, use_ddp, use_nccl, use_gloo;
	int devices_used;     /* distinct device pids with device events */
	uint8_t *tc_cache;    /* per string id: 0 unknown, 1 no TC, 2 TC kernel */
	uint16_t *name_flags; /* per string id: AN_NAME_* | 0x8000 once computed */
	struct an_datapipe datapipe;
	struct an_cpu cpu;
	struct an_hostinfo hostinfo;
	struct an_steptrace steptrace;
	struct an_hta *hta; /* owned; allocated by the first HTA pass */
	struct an_opts opts;
	struct an_pass_cache cache;
};

/* an_tc_kernel() on a kernel name id, memoised in p->tc_cache. */
int an_tc_kernel_id(struct an_profile *p, uint32_t name);

/* An empty profile of model m (finalized, outliving the profile): no pass
 * has run. Release it with an_profile_release. */
void an_profile_init(struct an_profile *p, const struct model *m);
/* Runs pass `pass` on first use, its needs first, and remembers the
 * outcome: NNS_OK, or the status (and message) it failed with, every time.
 * Thread-safe on one profile. A profile is a cache of its model's
 * analyses: a pass adds its own result and changes nothing a reader has
 * seen, which is why writers holding the profile const may ask. */
int an_profile_need(const struct an_profile *p, enum an_pass pass, struct nns_err *err);
/* an_profile_init, then every base pass (the profile proper, not HTA's).
 * NNS_OK, NNS_EINVAL (model not finalized) or NNS_ENOMEM. */
int an_profile_compute(struct an_profile *p, const struct model *m, struct nns_err *err);
/* Frees everything the passes made (also of a failed or zeroed profile). */
void an_profile_release(struct an_profile *p);

/* The base passes (an_passes[].run), in the pass table's order. Each
 * fills its part of *p and reads the parts of the passes it needs; call
 * them through an_profile_need (tests may call one after its needs). */
int an_steps_compute(struct an_profile *p, struct nns_err *err);     /* steps.c */
int an_breakdown_compute(struct an_profile *p, struct nns_err *err); /* breakdown.c */
int an_optree_compute(struct an_profile *p, struct nns_err *err);    /* optree.c */
int an_ops_compute(struct an_profile *p, struct nns_err *err);	     /* operators.c */
int an_kernels_compute(struct an_profile *p, struct nns_err *err);   /* kernels.c */
int an_gpu_compute(struct an_profile *p, struct nns_err *err);	     /* gpu.c */
int an_memory_compute(struct an_profile *p, struct nns_err *err);    /* memory.c */
int an_modules_compute(struct an_profile *p, struct nns_err *err);   /* modules.c */
int an_comm_compute(struct an_profile *p, struct nns_err *err);	     /* comm.c */
int an_datapipe_compute(struct an_profile *p, struct nns_err *err);  /* datapipe.c */
int an_cpu_compute(struct an_profile *p, struct nns_err *err);	     /* cpuutil.c */
int an_hostinfo_compute(struct an_profile *p, struct nns_err *err);  /* hostinfo.c */
int an_steptrace_compute(struct an_profile *p, struct nns_err *err); /* steptrace.c */
int an_advice_compute(struct an_profile *p, struct nns_err *err);    /* advice.c */
void an_datapipe_release(struct an_datapipe *d);
void an_cpu_release(struct an_cpu *c);
void an_hostinfo_release(struct an_hostinfo *h);
void an_steptrace_release(struct an_steptrace *s);

/* ---- distributed (per run, several workers; distributed.c) ---------------- */

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

/* ---- diff (diff.c) -------------------------------------------------------- */

struct an_diff_row {
	char name[256];
	int64_t base_calls, exp_calls;
	int64_t base_host, exp_host; /* host total */
	int64_t base_dev, exp_dev;   /* device total */
	int64_t base_host_self, exp_host_self;
	int64_t base_dev_self, exp_dev_self;
};

struct hcp_tdiff; /* analysis/hta_critpath.h */

struct an_diff {
	VEC(struct an_diff_row) ops; /* union of operator names, sorted by |delta| */
	double base_step[AN_NROLES + 1], exp_step[AN_NROLES + 1]; /* avg roles + total, ns */
	size_t base_steps, exp_steps;
	struct hcp_tdiff *hta; /* HTA trace_diff of the first steps, owned */
};

int an_diff_compute(struct an_diff *d, const struct an_profile *base, const struct an_profile *exp,
		    struct nns_err *err);
void an_diff_release(struct an_diff *d);

#endif
