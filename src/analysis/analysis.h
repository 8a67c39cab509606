/*
 * analysis.h - the profile of one worker/span: struct an_profile, which
 * holds the result of every per-worker analysis, the pass table that says
 * what each analysis needs, and an_profile_need, which runs them on demand.
 * Each analysis's result and entry point are declared in its own header
 * (an_steps.h, an_optree.h, ... an_hta.h), all reachable from here; the
 * step-time roles and their names are in an_roles.h.
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

#include "analysis/an_roles.h"
#include "analysis/an_steps.h"
#include "analysis/an_optree.h"
#include "analysis/an_ops.h"
#include "analysis/an_kernels.h"
#include "analysis/an_tensorcore.h"
#include "analysis/an_gpu.h"
#include "analysis/an_memory.h"
#include "analysis/an_modules.h"
#include "analysis/an_comm.h"
#include "analysis/an_datapipe.h"
#include "analysis/an_cpu.h"
#include "analysis/an_hostinfo.h"
#include "analysis/an_steptrace.h"
#include "analysis/an_advice.h"
#include "analysis/an_dist.h"
#include "analysis/an_diff.h"
#include "analysis/intervals.h"
#include "model/model.h"

#include <pthread.h>

/* ---- the passes ----------------------------------------------------------- */

/* Every per-worker analysis is a pass of profile.c's table, which names
 * what each needs (the table is the order of truth: a pass comes after its
 * needs). The first AN_PASS_NBASE are the profile proper, all run by
 * an_profile_compute; the others (HTA's) run when a writer first needs
 * them, and their results live in p->hta (analysis/an_hta.h). */
enum an_pass {
	AN_PASS_STEPS = 0,     /* overview.steps (steps.c) */
	AN_PASS_OPTREE,	       /* tree (optree.c) */
	AN_PASS_TENSORCORE,    /* tc, tc_support, tc_ev (tensorcore.c) */
	AN_PASS_BREAKDOWN,     /* overview costs, roles (breakdown.c) */
	AN_PASS_COMM,	       /* comm_nodes, comm_ranges (comm.c) */
	AN_PASS_OPS,	       /* ops (operators.c) */
	AN_PASS_KERNELS,       /* kernels (kernels.c) */
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
	pthread_mutex_t lock;	   /* guards the fields below (the server's threads
				    * share a profile); released while a pass runs */
	pthread_cond_t cond;	   /* signalled when a pass ends */
	uint32_t done;		   /* bit per pass that ran */
	uint32_t running;	   /* bit per pass running now */
	int names_ready;	   /* an_names_prepare ran (before the first pass) */
	int rc[AN_PASS__N];	   /* its status */
	char *msg[AN_PASS__N];	   /* owned: its error message, NULL if none */
	unsigned runs[AN_PASS__N]; /* times it ran (tests: 0 or 1) */
};

/* ---- the whole profile of one worker/span --------------------------------- */

struct ms_profile;
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
	struct an_tc tc;		     /* tensor-core shares (AN_PASS_TENSORCORE) */
	double tc_eligible_ops_kernel_ratio; /* tc.eligible_ops_kernel_ratio */
	int tc_support;			     /* an_tc_support(m, -1), set by AN_PASS_TENSORCORE */
	struct an_tc_evidence tc_ev;	     /* its evidence, scanned once there */
	int use_dp, use_ddp, use_nccl, use_gloo;
	int devices_used;     /* distinct device pids with device events */
	uint8_t *tc_cache;    /* per string id: 0 unknown, 1 no TC, 2 TC kernel */
	uint16_t *name_flags; /* per string id: AN_NAME_* | 0x8000 once computed */
	struct an_datapipe datapipe;
	struct an_cpu cpu;
	struct an_hostinfo hostinfo;
	struct an_steptrace steptrace;
	struct ms_profile *ms; /* a MindSpore device's results (an_ms.h), else NULL */
	struct an_hta *hta;    /* owned; allocated by the first HTA pass */
	struct an_opts opts;
	struct an_pass_cache cache;
};

/* An empty profile of model m (finalized, outliving the profile): no pass
 * has run. Release it with an_profile_release. */
void an_profile_init(struct an_profile *p, const struct model *m);
/* Runs pass `pass` on first use, its needs first, and remembers the
 * outcome: NNS_OK, or the status (and message) it failed with, every time.
 * Thread-safe on one profile: a pass another thread is running is waited
 * for. A profile is a cache of its model's analyses: a pass adds its own
 * result and changes nothing a reader has seen, which is why writers
 * holding the profile const may ask. Passes run side by side (below), so a
 * pass reads only the model and the results of the passes the table says
 * it needs, and writes only its own; its run must not call
 * an_profile_need itself: its needs are in the table. */
int an_profile_need(const struct an_profile *p, enum an_pass pass, struct nns_err *err);

/* The bit of a pass in a mask of passes. */
#define AN_PASS_BIT(x) (1u << (x))
/* The base passes (an_profile_compute). */
#define AN_PASSES_BASE (AN_PASS_BIT(AN_PASS_NBASE) - 1u)
/* What the default documents read (`nnscope analyse`, the server's cache):
 * every pass but the critical path of a chosen step. */
#define AN_PASSES_DOCS ((AN_PASS_BIT(AN_PASS__N) - 1u) & ~AN_PASS_BIT(AN_PASS_CRITPATH_STEP))

/* The most threads an_profile_need_mask uses. */
#define AN_THREADS_MAX 8

/* Runs the passes of mask that have not run, and their needs, on up to
 * `threads` threads (this one and threads - 1 started here; <= 1: this
 * thread alone), each pass as soon as its needs are done. The results are
 * those of an_profile_need pass by pass. NNS_OK, or the status and message
 * of the first pass of mask (in table order) that failed. */
int an_profile_need_mask(const struct an_profile *p, uint32_t mask, int threads,
			 struct nns_err *err);
/* an_profile_init, then every base pass (the profile proper, not HTA's).
 * NNS_OK, NNS_EINVAL (model not finalized) or NNS_ENOMEM. */
int an_profile_compute(struct an_profile *p, const struct model *m, struct nns_err *err);
/* The second half of an_profile_compute: every base pass of a profile
 * an_profile_init made, for a caller that hands the profile to another
 * thread in between (that thread may ask for passes meanwhile). */
int an_profile_run_base(struct an_profile *p, struct nns_err *err);
/* The same with the passes of mask too (AN_PASSES_DOCS: what the
 * documents read), on up to `threads` threads (an_profile_need_mask). Only
 * a base pass's failure fails it; another pass's stays in the cache, for
 * its writer's need to answer, as if it had run there. */
int an_profile_compute_mask(struct an_profile *p, const struct model *m, uint32_t mask, int threads,
			    struct nns_err *err);
/* The second half of an_profile_compute_mask: the passes of mask and the
 * base ones on a profile an_profile_init made, for a caller that hands
 * the profile to another thread in between (that thread may ask for
 * passes meanwhile). */
int an_profile_run_mask(struct an_profile *p, uint32_t mask, int threads, struct nns_err *err);
/* Frees everything the passes made (also of a failed or zeroed profile). */
void an_profile_release(struct an_profile *p);

#endif
