/*
 * ms_minddata.h - MindInsight's MindData (data preparation) analyses over
 * the files read by src/importers/ms_minddata.h. Definitions (reference
 * mindinsight.md "Data preparation (MindData)" and "proposers"; upstream
 * minddata_analyser.py, minddata_pipeline_analyser.py,
 * minddata_cpu_utilization_analyser.py, minddata_proposer.py,
 * minddata_pipeline_proposer.py):
 *
 * Device queue (analyse_device_queue_info): queue records sorted by step
 * (stable); empty = size 0, full = size == capacity; time: total/push/get
 * costs sorted by step, size = number of total-cost records, avg_cost =
 * sum(total) / size, get_cost = sum(get) / size, push_cost = sum(push) / size
 * (all ms; no summary when size is 0).
 * GetNext (analyse_get_next_info): queue sizes in file order, empty = size 0;
 * costs (ms) in file order, avg = sum / count.
 * Queue summary (analyse_queue_summary, MindInsight HEAD): with both files,
 * data_process = warning when device-queue empty > 0.3 x total, else
 * data_transmission = warning when the chip queue was ever empty, else
 * device_queue_warning = warning; get_next stays normal. With the device
 * queue alone: data_process or device_queue_warning. Without the device
 * queue: no summary.
 * Pipeline: query sorted by any column (None smallest, stable, as upstream's
 * _sort); op + parent info; the threshold filter (_filter_outside_threshold,
 * [high, low], proposer default [0.8, 0.6]).
 * CPU utilization: samples mapped to steps by the device queue's queue
 * records' time stamps (before the first record: step 0), the samples from
 * step 1 to step_total_num kept (_filter with no condition), per-metric
 * averages = round-half-even(mean) (Python round), op_id -1 skipped.
 * Proposals: see ms_md_propose.
 *
 * Pure functions: read the importer structs, fill caller structs.
 * Ownership: each result struct owns its vectors, freed by its _release.
 */
#ifndef NNS_ANALYSIS_MS_MINDDATA_H
#define NNS_ANALYSIS_MS_MINDDATA_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/vec.h"
#include "importers/ms_minddata.h"

#define MS_MD_EMPTY_WARNING_THRESHOLD 0.3 /* DEVICE_QUEUE_EMPTY_WARNING_THRESHOLD */
#define MS_MD_CPU_ACTIVE_THRESHOLD 80	  /* minddata_cpu_utilization: 100 - idle > 80 */
#define MS_MD_PIPE_HIGH 0.8		  /* proposer threshold [high, low] */
#define MS_MD_PIPE_LOW 0.6

/* ---- queues ---------------------------------------------------------- */

struct ms_md_dq_info {
	size_t queue_n, empty, full;
	VEC(int64_t) queue_size;				  /* by step */
	VEC(int64_t) capacity;					  /* by step */
	size_t time_n;						  /* total-cost records */
	double avg_cost_ms, get_cost_ms, push_cost_ms;		  /* valid when time_n > 0 */
	VEC(double) total_cost_ms, push_cost_ms_v, get_cost_ms_v; /* by step */
};

struct ms_md_gn_info {
	size_t queue_n, empty;
	VEC(int64_t) queue; /* file order */
	size_t time_n;
	double avg_cost_ms; /* valid when time_n > 0 */
	VEC(double) cost_ms;
};

int ms_md_dq_analyse(const struct ms_md_dq *q, struct ms_md_dq_info *out);
void ms_md_dq_info_release(struct ms_md_dq_info *x);
int ms_md_gn_analyse(const struct ms_md_gn *g, struct ms_md_gn_info *out);
void ms_md_gn_info_release(struct ms_md_gn_info *x);

enum ms_md_status { MS_MD_ABSENT = 0, MS_MD_NORMAL, MS_MD_WARNING };

struct ms_md_queue_summary {
	int present; /* 0: no device queue file, nothing else is set */
	int has_get_next;
	size_t gn_empty, gn_total;
	size_t dq_empty, dq_full, dq_total;
	enum ms_md_status data_process, data_transmission, device_queue_warning, get_next;
};

void ms_md_queue_summary(const struct ms_md_dq *q, const struct ms_md_gn *g,
			 struct ms_md_queue_summary *out);
const char *ms_md_status_name(enum ms_md_status s); /* "normal", "warning", NULL */

/* ---- pipeline -------------------------------------------------------- */

enum ms_md_col {
	MS_MD_COL_OP_ID,
	MS_MD_COL_OP_TYPE,
	MS_MD_COL_NUM_WORKERS,
	MS_MD_COL_QUEUE_SIZE,
	MS_MD_COL_QUEUE_AVG,
	MS_MD_COL_QUEUE_LENGTH,
	MS_MD_COL_QUEUE_USAGE,
	MS_MD_COL_SAMPLE_INTERVAL,
	MS_MD_COL_PARENT_ID,
	MS_MD_COL_CHILDREN_ID,
	MS_MD_NCOLS
};

/* The upstream column name ("op_id", ... "children_id"), or NULL. */
const char *ms_md_col_name(int col);
/* The column of an upstream name, or -1. */
int ms_md_col_from_name(const char *name);

/* Writes into order[0..p->ops.n) the op indexes sorted by column col
 * (descending or ascending; a missing value is the smallest; lists compare
 * item by item; ties keep file order). NNS_OK or NNS_EINVAL (bad col). */
int ms_md_pipeline_sort(const struct ms_md_pipeline *p, int col, int descending, size_t *order);

/* The index of op_id and of its parent (-1 when it has none or the parent
 * is not in the file: upstream then gives no parent_op and no queue_info).
 * NNS_OK or NNS_ENOTFOUND. */
int ms_md_op_and_parent(const struct ms_md_pipeline *p, int64_t op_id, long *cur, long *parent);

/* Upstream _filter_outside_threshold over all ops: idx[0..*n) (at most
 * p->ops.n) gets the flagged op indexes in file order. A non-root op (with
 * a parent) is flagged when its usage < low and every child's usage >=
 * high; if every non-root op is < low, the result is the leaves instead;
 * else if every non-root op is >= high, it is the root alone. A missing
 * usage counts as 0, an unknown child as not high. */
void ms_md_pipeline_outside_threshold(const struct ms_md_pipeline *p, double high, double low,
				      size_t *idx, size_t *n);

/* ---- CPU utilization ------------------------------------------------- */

struct ms_md_cpu_info {
	size_t nsamples;	  /* time_stamp entries */
	size_t step_total_num;	  /* queue records with a time stamp */
	VEC(int64_t) sample_step; /* per sample; 0 = before step 1 */
	int mapped;		  /* steps could be mapped; else all samples are kept */
	size_t first, end;	  /* the samples averaged: [first, end) */
	int has_idle;
	double idle_avg;   /* device idle_utilization average */
	double active_avg; /* 100 - idle_avg */
};

int ms_md_cpu_analyse(const struct ms_md_cpu *c, const struct ms_md_dq *q,
		      struct ms_md_cpu_info *out);
void ms_md_cpu_info_release(struct ms_md_cpu_info *x);
/* round-half-even(mean of s->v[first .. min(end, n))), 0 when empty. */
double ms_md_cpu_avg(const struct ms_md_series *s, size_t first, size_t end);

/* ---- proposals ------------------------------------------------------- */

struct ms_md_proposal {
	char id[48]; /* MindInsight's label, e.g. "minddata_device_queue" */
	int nnums;   /* numeric arguments (upstream's list) */
	double nums[4];
	char *str;	   /* the one string argument (pipeline labels), owned */
	const char *cause; /* minddata_device_queue_rate: "data_process" / "data_transmission" */
	char text[1024];   /* advice for people */
};

struct ms_md_proposals {
	VEC(struct ms_md_proposal) v;
};

/* MindInsight's minddata + minddata_pipeline proposers, in upstream order:
 *   minddata_get_next_queue [empty, total]  (both queue files)
 *   minddata_device_queue [empty, total, full, total]  (device queue, total > 0)
 *   minddata_device_queue_rate {empty_rate = ceil(empty / total * 100),
 *       empty_warning_threshold = 30}  when data_process or data_transmission warns
 *   device_queue_warning ["warning"]  when that status warns
 *   minddata_cpu_utilization [100 - idle avg]  when > 80
 *   minddata_pipeline-general / -dataset_op / -generator_op / -map_op /
 *       -batch_op [names "<op_type>_<op_id>" of the flagged ops ([0.8, 0.6])
 *       reversed, joined by "/"]: all flagged / leaves / GeneratorOp /
 *       MapOp / BatchOp; none when the first flagged op is the root.
 * Any input may be NULL or absent. NNS_OK or NNS_ENOMEM. */
int ms_md_propose(const struct ms_md_dq *q, const struct ms_md_gn *g,
		  const struct ms_md_pipeline *p, const struct ms_md_cpu *c,
		  struct ms_md_proposals *out);
void ms_md_proposals_release(struct ms_md_proposals *x);
/* The proposal with this id, or NULL. */
const struct ms_md_proposal *ms_md_proposal_find(const struct ms_md_proposals *x, const char *id);

/* ---- all of them, once ------------------------------------------------ */

/* Every analysis of one device's MindData files that its document shows
 * (ms_md_compute). Each part's rc is NNS_OK when it was computed or its
 * file is absent (the file's present flag says which), else the status;
 * a part that failed is empty. */
struct ms_md_result {
	int dq_rc, gn_rc, pl_rc, cpu_rc, prop_rc;
	struct ms_md_dq_info dq;
	struct ms_md_gn_info gn;
	struct ms_md_queue_summary sum;
	VEC(size_t) bottleneck; /* ms_md_pipeline_outside_threshold ([high, low]) */
	struct ms_md_cpu_info cpu;
	/* ms_md_cpu_avg of every series over cpu's [first, end): the device's
	 * and the process's, and op k's metric i at [k * MS_MD_MAX_METRICS + i] */
	double dev_avg[MS_MD_MAX_METRICS], proc_avg[MS_MD_MAX_METRICS];
	VEC(double) op_avg;
	/* total_op_avg: user_utilization, sys_utilization, then the other
	 * metrics in order of appearance, each the sum of the pipeline ops'
	 * averages (ops with op_id -1 left out) */
	size_t ntot;
	char tot_name[MS_MD_MAX_METRICS][MS_MD_NAME_MAX];
	double tot[MS_MD_MAX_METRICS];
	struct ms_md_proposals props;
};

/* Computes *r (caller storage, initialised here) from the files read into
 * m. Always returns NNS_OK: each part keeps its own status. */
int ms_md_compute(const struct ms_md *m, struct ms_md_result *r);
void ms_md_result_release(struct ms_md_result *r);

#endif
