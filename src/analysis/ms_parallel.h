/*
 * ms_parallel.h - MindInsight's parallel strategy and stage timeline
 * (Marey) analyses over a MindSpore profiler directory
 * (docs/MINDSPORE.md, "Parallel strategy and the stage timeline").
 *
 * Parallel strategy (MindInsight's GraphManager, graph.py): the ranks'
 * graphs (importers/ms_parallel.h) grouped by stage from the first file's
 * config.stageDevices (data_parallel: every rank in stage 0); per stage a
 * merged graph: rank_ids (ascending), the first rank's op nodes with their
 * inputs resolved (a const / parameter keeps its name, an op becomes its
 * topo index, other names are dropped) and parallel_group the sorted union
 * of every rank's "group" attribute, and the first rank's const nodes.
 *
 * Stage timeline (MindInsight's TimelineService, timeline_processor.py)
 * from every ascend_timeline_display_<dev>.json of the directory: devices
 * grouped into stages by the shortest AllReduce of step 1 (a device whose
 * step has the same-named operator is in the same stage, and its times are
 * shifted by the difference of their starts), then for the step asked for
 * each device's operators in the step {st, ed, dur}, minT / maxT, and per
 * stage each operator's st/ed max, min and running mean over its devices.
 * A directory without timelines but with a saved answer
 * (ascend_marey_timeline_<step>.json) gives that answer.
 *
 * Ownership: struct ms_par owns the files it read and its stages (whose
 * nodes point into them); ms_par_release frees it.
 */
#ifndef NNS_ANALYSIS_MS_PARALLEL_H
#define NNS_ANALYSIS_MS_PARALLEL_H

#include "common/err.h"
#include "common/vec.h"
#include "importers/ms_parallel.h"

struct ms_par_node {
	const struct ms_ps_node *n; /* the first rank's node */
	VEC(char *) inputs;	    /* resolved */
	VEC(char *) groups;	    /* parallel_group */
};

struct ms_par_stage {
	int stage;
	VEC(int) rank_ids;
	VEC(struct ms_par_node) ops;
	const struct ms_ps_file *first; /* const nodes come from it */
};

struct ms_par {
	int rc; /* NNS_OK, NNS_ENOTFOUND (no files), or the error */
	struct nns_err err;
	struct ms_ps_set set;
	const char *parallel_type; /* the first file's, "" without files */
	VEC(struct ms_par_stage) stages;
};

/* Merges s (taken over: released with p) into p. NNS_OK or NNS_ENOMEM. */
int ms_par_merge(struct ms_par *p, struct ms_ps_set *s, struct nns_err *err);
/* Reads and merges src->dir's files; p->rc / p->err say how it went. */
void ms_par_load(struct ms_par *p, const struct ms_src *src);
void ms_par_release(struct ms_par *p);

/* Fills every stage's data from m->maps and the stage's devices
 * (TimelineService.get_ops_by_step's aggregation). NNS_OK / NNS_ENOMEM. */
int ms_marey_aggregate(struct ms_marey *m, struct nns_err *err);

/* The stage timeline of step (a step number, "1" by default) from the
 * timelines in s (timestamps shifted in place). */
int ms_marey_compute(struct ms_mtl_set *s, const char *step, struct ms_marey *m,
		     struct nns_err *err);

/* The stage timeline of src->dir: computed from its timelines when it has
 * some, else its saved answer. m->steps: the job's steps, ascending (the
 * numbers naming the timelines' step rows, [1] = the whole time when there
 * are none; or the k of every ascend_marey_timeline_<k>.json). step: a
 * decimal step number among them, NULL for the first. NNS_OK,
 * NNS_ENOTFOUND (neither), NNS_EINVAL (step not a number or not one of the
 * job's, the message lists them), other errors. */
int ms_marey_load(const struct ms_src *src, const char *step, struct ms_marey *m,
		  struct nns_err *err);

/* 1 when src's device is the one that carries the job's stage timeline
 * (written and reported once per job): the first device with a timeline,
 * else device 0. */
int ms_marey_owner(const struct ms_src *src);

#endif
