/*
 * an_ms.h - the MindSpore results of one worker that is a MindSpore device
 * (importers/ms_load.h): everything the MindSpore pages, exports and report
 * show, read from the device's profiler files ONCE (ms_profile_load) and
 * then only read by the writers in src/output, which include this header
 * and never a reader's.
 *
 * What it holds, per file (definitions in docs/MINDSPORE.md and in the
 * readers' headers, whose result types this header re-exports):
 *   AI Core by type / by operator  aicore_intermediate_<dev>_{type,detail}.csv
 *   step trace                     step_trace_raw_<dev>_detail_time.csv: the
 *                                  rows in us, MindInsight's summary
 *                                  (ms_steptrace.h), the average step's
 *                                  training-trace graph, fp_start / bp_end
 *   FLOPs, op detail, AI CPU, dynamic shape, MindData: the readers' structs.
 *   device memory                  memory_usage_<dev>.pb (analysis/ms_memory.h)
 * Each part keeps how its read went: NNS_OK, NNS_ENOTFOUND (absent), or an
 * error whose message the documents name; a part that failed is empty.
 *
 * Ownership: a struct ms_profile owns everything it holds (the source's
 * directory is borrowed from the model, which outlives it);
 * ms_profile_release frees it. an_ms_attach hangs one off an_profile (p->ms),
 * freed by an_profile_release.
 */
#ifndef NNS_ANALYSIS_AN_MS_H
#define NNS_ANALYSIS_AN_MS_H

#include "analysis/ms_memory.h"
#include "analysis/ms_minddata.h"
#include "analysis/ms_host.h"
#include "analysis/ms_steptrace.h"
#include "common/err.h"
#include "common/vec.h"
#include "importers/ms_aicore_detail.h"
#include "importers/ms_aicore_type.h"
#include "importers/ms_aicpu.h"
#include "importers/ms_dynshape.h"
#include "importers/ms_flops.h"
#include "importers/ms_minddata.h"
#include "importers/ms_opdetail.h"
#include "importers/ms_optab.h"
#include "importers/ms_raw.h"
#include "importers/ms_src.h"

struct an_profile;

/* How reading one file went. rc: NNS_OK when read and parsed,
 * NNS_ENOTFOUND when absent, else the error; err: the reader's message;
 * named: the message the documents list ("<path>: <why>" when the parser
 * failed, the reader's own when the file could not be read). */
struct ms_part {
	int rc;
	struct nns_err err;
	char named[NNS_ERR_MSG_MAX];
};

/* One row of the step-trace table, times in us (10 ns counts / 100, 0 where
 * the file has no number); the last row is MindSpore's average row. */
struct ms_step_row {
	char name[16]; /* the step_num text ("1".."n", "-" for the average) */
	double start_us, end_us;
	double interval_us, fp_bp_us, tail_us, total_us;
};

struct ms_profile {
	struct ms_src src; /* dir borrowed from the model */
	/* a raw job (ms_raw.h): raw_rc NNS_OK when src.raw points at raw, whose
	 * warnings name the damaged files; NNS_ENOTFOUND for parsed layouts */
	int raw_rc;
	struct ms_raw raw;

	struct ms_part at_part, ad_part;
	struct ms_at at; /* AI Core time by type, file order */
	struct ms_ad ad; /* AI Core time by operator, file order */

	/* step trace: st_part.rc NNS_OK when the table was read (steps has
	 * its rows), NNS_ENOTFOUND when absent */
	struct ms_part st_part;
	VEC(struct ms_step_row) steps;
	int sum_rc; /* MindInsight's summary: NNS_OK when sum holds it */
	struct nns_err sum_err;
	struct ms_st_summary sum;
	int graph_rc; /* the average step's graph: NNS_OK when graph holds it */
	struct ms_st_graph graph;
	int point_rc; /* step_trace_point_info: NNS_OK when fp / bp hold it */
	char fp_start[512], bp_end[512];

	int flops_rc, opd_rc, aicpu_rc, ds_rc; /* the readers' status */
	struct nns_err flops_err, opd_err, aicpu_err, ds_err;
	struct ms_flops flops;
	struct ms_opd opd;
	struct ms_aicpu aicpu;
	struct ms_ds ds;

	struct ms_md md;	       /* MindData: the files; md's own errors list */
	struct ms_md_result md_result; /* and their analyses (ms_md_compute) */

	struct ms_optabs optabs; /* GPU-mode and host CPU op tables (ms_optab.h) */
	struct ms_mem mem;	 /* memory_usage_<dev>.pb and its views (ms_memory.h) */

	/* host_info/host_info_<rank>.csv (importers/ms_host.h) and MindSpore's
	 * analysis of it (analysis/ms_host.h): host_rc NNS_OK when both hold
	 * it, NNS_ENOTFOUND when the device has no host_info file, else why
	 * (host_err) */
	int host_rc;
	struct nns_err host_err;
	struct ms_host_csv host;
	struct ms_host_result host_res;
};

/* Reads every file of the device s into *mp (caller storage, initialised
 * here). A file that is absent or damaged is recorded in its part and the
 * rest is kept, so this returns NNS_OK but for NNS_ENOMEM. */
int ms_profile_load(struct ms_profile *mp, const struct ms_src *s, struct nns_err *err);
void ms_profile_release(struct ms_profile *mp);

/* When p's model is a MindSpore device, loads its ms_profile into p->ms
 * (freed by an_profile_release); else leaves p->ms NULL. NNS_OK or
 * NNS_ENOMEM. */
int an_ms_attach(struct an_profile *p, struct nns_err *err);
/* `--steps first-last` (ms_steps_cut.c): keeps the step-trace rows of
 * those steps with a new average row and MindInsight's summary of them;
 * the other tables are not per step and stay whole. */
void ms_profile_keep_steps(struct ms_profile *mp, long first, long last);

/* Frees p->ms (NULL is fine) and clears it. */
void an_ms_detach(struct an_profile *p);

#endif
