/*
 * ms_parallel.h - MindSpore's parallel strategy files and the stage
 * timeline (Marey) data of a profiler directory, read as MindInsight reads
 * them (docs/MINDSPORE.md, "Parallel strategy and the stage timeline").
 *
 * parallel_strategy_<rank>.json (MindSpore's profiling_parallel.proto as
 * JSON: {"config":{rankId, stageId, parallelType, stageDevices[{dim[{size}]}]},
 * "graph":{node[], parameters[], constVals[]}}) is read per rank into a
 * struct ms_ps_file, following MindInsight's graph.py `Graph`:
 *   - op nodes: those with a name and a fullName, topo index 1.. in file
 *     order; name = fullName, or "<scope>/<opType>-op<name>" for Load and
 *     summary nodes (fullName ending "[:scalar]" etc.);
 *   - attributes as Python's str() of the parsed value ("[2, 3, 2, 3]",
 *     "['DT_BASE_FLOAT', 'DT_BASE_INT']"); gen_strategy is left out of
 *     them (MindInsight shows in_strategy), but kept in `strategy` here;
 *   - output_shape: the "shapes" attribute (a string) when there is one,
 *     else the shape of the output type (JSON text of a list of dim sizes,
 *     or a list of such lists for a tuple);
 *   - output_data_type: "DT_TENSOR[DT_FLOAT32]", "DT_TUPLE[...]" as Python
 *     prints the list;
 *   - consts (constVals[].key) and parameters (parameters[].name) are
 *     Const nodes, keyed by name.
 * Inputs are kept by their raw names; ms_par_merge (analysis/ms_parallel.h)
 * resolves them.
 *
 * ascend_marey_timeline_<step>.json (MindInsight's /profile/marey-graph/
 * timeline answer saved for a step: {maps{device{op{st,ed,dur}}}, minT,
 * maxT, stage_data{stageK{data{op{st_max..n}}, devices[]}}}) and
 * scope_map_<step>.json ({scope_map{op: scope}}) are read into a struct
 * ms_marey; ascend_timeline_display_<dev>.json timelines are read into
 * struct ms_mtl (the events MindInsight's TimelineService keeps) for
 * analysis/ms_parallel_marey.c to compute the same answer.
 *
 * Errors: "<file>:<line>: why" (NNS_EFORMAT), NNS_EIO, NNS_ENOMEM.
 * Ownership: every struct owns its strings; the *_release functions free
 * them and leave the struct empty (safe on a zeroed struct).
 */
#ifndef NNS_IMPORTERS_MS_PARALLEL_H
#define NNS_IMPORTERS_MS_PARALLEL_H

#include <stddef.h>

#include "common/err.h"
#include "common/vec.h"
#include "importers/ms_src.h"

#define MS_PAR_FILES_MAX 4096 /* parallel strategy files / timelines per directory */

/* Discovery (ms_load.c's ms_match_file): parallel_strategy_<rank>.json
 * (device <rank>, anchor priority 2), profiler_info_<rank>.json (device
 * <rank>, 3), ascend_marey_timeline_<step>.json and scope_map_<step>.json
 * (a step, not a device: device 0, 3). 1 with *dev / *prio, else 0. */
int ms_par_match_file(const char *base, int *dev, int *prio);

struct ms_ps_attr {
	char *name, *value; /* value: Python's str() of the parsed value */
};

struct ms_ps_node {
	char *id;   /* the proto's name (ids inputs refer to) */
	char *name; /* MindInsight's node name */
	char *scope, *type;
	char *instance_type; /* "", "GradientAggregation", "Redistribution" */
	VEC(struct ms_ps_attr) attrs;
	VEC(char *) inputs; /* raw input names */
	char *shape_attr;   /* the "shapes" attribute (str), or NULL */
	char *shape_json;   /* else the output type's shape as JSON text */
	char *data_type;    /* "" when no output type */
	char *group;	    /* attr "group" or NULL */
	char *in_strategy;  /* attr "in_strategy" or NULL (MindInsight's parallel_shard) */
	char *group_ranks;  /* attr "group_ranks" or NULL */
	char *strategy;	    /* in_strategy, else gen_strategy, as str(), or NULL */
	int topo;	    /* 1.. for op nodes, 0 for consts */
};

struct ms_ps_strs {
	VEC(char *) v;
};

struct ms_ps_file {
	char *path;
	int rank;
	int stage_id;
	char *parallel_type;
	VEC(struct ms_ps_strs) stage_devices; /* config.stageDevices: per stage, rank ids as text */
	VEC(struct ms_ps_node) ops;
	VEC(struct ms_ps_node) consts; /* constVals, then parameters */
};

struct ms_ps_set {
	VEC(struct ms_ps_file) files; /* in file-name order */
	VEC(char *) errors;	      /* "<file>:<line>: why" of the files not read */
};

/* Parses one parallel strategy document buf[0..n) named name. */
int ms_ps_parse(struct ms_ps_file *f, const char *buf, size_t n, const char *name,
		struct nns_err *err);
void ms_ps_file_release(struct ms_ps_file *f);

/* Reads every parallel_strategy_<rank>.json of src->dir (beneath
 * src->root; src->dev unused). NNS_OK (a damaged file is listed in
 * s->errors, the others kept), NNS_ENOTFOUND when there is none, NNS_EIO
 * when the directory cannot be listed, NNS_ENOMEM. */
int ms_ps_read_dir(const struct ms_src *src, struct ms_ps_set *s, struct nns_err *err);
void ms_ps_set_release(struct ms_ps_set *s);

/* ---- the stage timeline (Marey) ----------------------------------------- */

struct ms_marey_op {
	char *name;
	double st, ed, dur;
};

struct ms_marey_dev {
	char *name; /* "device<id>" */
	VEC(struct ms_marey_op) ops;
};

struct ms_marey_agg {
	char *name;
	double st_max, st_min, st_avg, ed_max, ed_min, ed_avg;
	int n;
};

struct ms_marey_stage {
	char *name; /* "stage<k>" */
	VEC(char *) devices;
	VEC(struct ms_marey_agg) data;
};

struct ms_marey_scope {
	char *op, *scope;
};

struct ms_marey {
	int step;
	const char *source; /* "file" (a saved answer) or "timelines" (computed) */
	int has_min;	    /* 0 when no operator fell in the step (min/max null) */
	double min_t, max_t;
	VEC(struct ms_marey_dev) maps;
	VEC(struct ms_marey_stage) stages;
	VEC(struct ms_marey_scope) scopes; /* scope_map_<step>.json, file order */
	VEC(int) steps;			   /* the job's steps, ascending (analysis/ms_parallel.h) */
};

void ms_marey_release(struct ms_marey *m);

/* The smallest step k of an ascend_marey_timeline_<k>.json in src->dir:
 * 1 and *step, else 0. */
int ms_marey_file_step(const struct ms_src *src, int *step);
/* The steps k of src->dir's ascend_marey_timeline_<k>.json, ascending, into
 * ids (at most max); the count, or -1 when the directory cannot be listed. */
int ms_marey_file_steps(const struct ms_src *src, int *ids, int max);

/* Reads ascend_marey_timeline_<step>.json and, when present,
 * scope_map_<step>.json of src->dir. NNS_OK, NNS_ENOTFOUND, errors. */
int ms_marey_read(const struct ms_src *src, int step, struct ms_marey *m, struct nns_err *err);
int ms_marey_parse(struct ms_marey *m, const char *buf, size_t n, const char *name,
		   struct nns_err *err);
int ms_marey_parse_scopes(struct ms_marey *m, const char *buf, size_t n, const char *name,
			  struct nns_err *err);

/* One timeline event TimelineService keeps: an operator (MindInsight's
 * _filt_op: a tid, "-op" in the name, ts and dur, not AtomicAddrClean /
 * StreamSend / StreamReceive) or a step row (named by its step number). */
struct ms_mtl_ev {
	char *name;
	double ts, dur;
	int is_op;
};

struct ms_mtl {
	int dev;
	VEC(struct ms_mtl_ev) ev; /* file order */
};

struct ms_mtl_set {
	VEC(struct ms_mtl) devs; /* ascending device id */
};

/* The device ids of src->dir's ascend_timeline_display_<dev>.json,
 * ascending, into ids (at most max); the count, or -1 (errno) when the
 * directory cannot be listed. */
int ms_mtl_devices(const struct ms_src *src, int *ids, int max);
/* Reads every ascend_timeline_display_<dev>.json of src->dir. NNS_OK,
 * NNS_ENOTFOUND when none, the first error otherwise. */
int ms_mtl_read_dir(const struct ms_src *src, struct ms_mtl_set *s, struct nns_err *err);
int ms_mtl_parse(struct ms_mtl *t, const char *buf, size_t n, const char *name,
		 struct nns_err *err);
void ms_mtl_set_release(struct ms_mtl_set *s);

#endif
