/*
 * ms_timeline.h - MindInsight's cluster ("msprof") timeline: the CANN
 * timeline files of every rank of a MindSpore job merged into one Chrome
 * trace per rank, as MindInsight's MsprofTimelineAnalyser does
 * (mindinsight/profiler/analyser/msprof_timeline_analyser.py).
 *
 * Layout: a directory holds PROF_* directories (or is one); each holds
 * device_<d>/ with info.json.<d> (rank_id, devices), start_info.<d>
 * (collectionTimeBegin µs, clockMonotonicRaw ns) and timeline/ with
 * <kind>_<dev>_<model>_<iter>.json, kind one of step_trace, msprof,
 * task_time, hccl (<model> is the sub-graph / model id). A rank's newest
 * PROF_* (greatest path) wins; rank_id -1 reads as 0.
 *
 * The planes of a rank (each event's ts moved by collectionTimeBegin -
 * clockMonotonicRaw/1000 µs so that ranks line up; done in whole ns, so
 * the result is exact where MindInsight's float sum rounds to 0.25 µs):
 *  - Step Trace: the first step_trace file (they are copies), its threads
 *    "Model ID:<m>" kept when m is selected. Merged sub-graphs: one thread
 *    "iterations" (tid = the process's pid), "Iteration k" renamed
 *    "Model ID:<m> Iteration k"; apart: the file's threads as they are.
 *  - Overlap Analysis: from the selected models' msprof files, the events
 *    named Computing / Communication / Communication(Not Overlapped) / Free
 *    on threads 0..3 of those names (msprof computes them: compute time,
 *    communication time, communication not hidden by compute, idle).
 *  - Ascend Hardware (detail only): every event of the task_time files, on
 *    their "Stream <s>" threads.
 *  - HCCL (detail only): every event of the hccl files, on their
 *    "Plane <p>" / "Communication Kernel" threads.
 * Summary = Step Trace + Overlap Analysis; detail adds the other two. Then
 * every pid becomes int(digits of pid + rank) and every process name gets
 * " rank<r>" (MindInsight's _merge_timeline).
 *
 * Ownership: struct mstl_ranks owns its strings (mstl_ranks_release).
 */
#ifndef NNS_IMPORTERS_MS_TIMELINE_H
#define NNS_IMPORTERS_MS_TIMELINE_H

#include "common/buf.h"
#include "common/err.h"
#include "common/vec.h"
#include "importers/kineto.h"
#include "model/model.h"

#include <stdint.h>

struct fs_root;

#define MSTL_MODELS_MAX 64

struct mstl_rank {
	int rank;
	char *dir;	   /* <PROF_*>/device_<d> */
	int64_t offset_ns; /* added to every ts */
};

struct mstl_ranks {
	VEC(struct mstl_rank) v; /* sorted by rank */
};

struct mstl_opts {
	int detail;		     /* 0: summary (Step Trace, Overlap Analysis) */
	int apart;		     /* 1: sub-graphs apart (not merged) */
	int nmodels;		     /* 0: every sub-graph */
	int models[MSTL_MODELS_MAX]; /* the sub-graphs (model ids) kept */
	int nranks;		     /* 0: every rank */
	int ranks[MSTL_MODELS_MAX];  /* the ranks kept */
};

/* The ranks under dir: its PROF_* subdirectories (names in sub[0..nsub)),
 * or dir itself when its base name starts with "PROF_". NNS_OK with
 * out->v.n == 0 when there are none; NNS_ENOMEM. out is caller storage,
 * overwritten. */
int mstl_find(const struct fs_root *root, const char *dir, char *const *sub, size_t nsub,
	      struct mstl_ranks *out, struct nns_err *err);
void mstl_ranks_release(struct mstl_ranks *r);

/* 1 when path is a <PROF_*>/device_<d> directory with timeline files. */
int mstl_is_rank_dir(const struct fs_root *root, const char *path);

/* The rank and ts offset of a device directory (info.json.*, start_info.*
 * in it or in its parent). */
void mstl_rank_info(const struct fs_root *root, const char *devdir, int *rank, int64_t *offset_ns);

/* The sub-graphs (model ids) of a device directory's step_trace files,
 * sorted, at most max; returns how many. */
int mstl_models(const struct fs_root *root, const char *devdir, int *models, int max);

/* Appends the events of one rank (comma-separated JSON objects, a leading
 * comma when *first is 0; *first then 0) to b. A file that cannot be read
 * or parsed is an error naming it (NNS_EIO, NNS_EFORMAT); a plane whose
 * files are absent is left out. */
int mstl_write_rank(struct buf *b, const struct fs_root *root, const struct mstl_rank *r,
		    const struct mstl_opts *o, int *first, struct nns_err *err);

/* The whole timeline of the selected ranks as one JSON array into b. */
int mstl_write(struct buf *b, const struct fs_root *root, const struct mstl_ranks *rs,
	       const struct mstl_opts *o, struct nns_err *err);

/* Loads one rank (devdir, as discovery lists it) into m (model_init done
 * here): its detail timeline, sub-graphs merged, through the Kineto
 * importer; metadata "msprof_rank" holds the rank. Returns as load_trace. */
int mstl_load_rank(struct model *m, const char *devdir, const struct kineto_opts *ko,
		   struct nns_err *err);

/* The same with a view: "<summary|detail>/<merged|apart>/<all|m,m,...>"
 * (any part may be left out: detail, merged, every sub-graph; NULL: the
 * default). The loaded rank's device work is classified as kernels of
 * device <rank> (Ascend Hardware's ops, HCCL's collectives; see
 * ms_timeline.c classify) while the Trace view keeps every event on its
 * plane's thread (metadata trace_tracks = threads); metadata msprof_rank,
 * msprof_models (the sub-graphs, "0,2"), msprof_view (the canonical view)
 * and device_kind NPU; its steps are the Step Trace plane's iterations
 * (ms_timeline_steps.c, metadata steps_from "msprof_step_trace"). NNS_EINVAL
 * for a view that does not parse. */
int mstl_load_rank_opts(struct model *m, const char *devdir, const char *view,
			const struct kineto_opts *ko, struct nns_err *err);

/* Parses a view (above) into o: 0, or -1 when it does not parse. */
int mstl_opts_parse(const char *view, struct mstl_opts *o);
/* The canonical text of o ("detail/merged/all", "summary/apart/0,2"). */
void mstl_opts_format(const struct mstl_opts *o, char *out, size_t n);

#endif
