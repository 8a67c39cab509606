/*
 * ms_marey_lines.h - the FLOPs and memory lines and the stage / device
 * blocks that MindInsight's Marey view draws beside the stage timeline
 * (NewMareyGraph.vue, StageTree.vue; docs/MINDSPORE.md, "Parallel strategy
 * and the stage timeline"), computed from a stage timeline (ms_parallel.h)
 * and each of its devices' files in the same directory.
 *
 * Lines, per device of m->maps (name "device<id>") with data:
 *   FLOPs: each row of flops_<id>.txt in file order; op = its full name
 *     after the last '/'; y = its MFLOPs (the legacy single column, else
 *     cube + vector where present: nnscope's reading of the newer file);
 *   memory: each node i of the graph with graph_id 1 of memory_usage_<id>.pb
 *     (upstream's details["1"]); op = the node's name (after the last '/');
 *     y = lines[i], bytes (analysis/ms_memory.h; upstream shows GB);
 *   a point is kept when op is in the device's map, its y is a number and op
 *   does not start with "Stream" or "AtomicAddrClean"; x = (st + ed) / 2 of
 *   the op in the map; points sorted by x (ties: file order). A device with
 *   no point has no line. min / max of y over every line of the kind (the
 *   chart scales each row's line between them).
 * Blocks (StageTree.vue), per stage in stage order: its devices with data
 *   (by the number in their name), then the stage itself:
 *   device: FLOPs / FLOPS of flops_summary_<id>.json, their ratio to the
 *     largest over the devices; peak / capacity of memory_usage_<id>.pb
 *     (ms_memory.h's summary) and peak / capacity;
 *   stage: the mean FLOPs and FLOPS of its devices with a summary and their
 *     ratio to the device maximum; the mean peak and capacity, and the mean
 *     of the devices' peak / capacity, over its devices with memory.
 *   Absent values are NAN (null in JSON).
 *
 * Bounds: the readers' (ms_flops.h, ms_memory.h). Errors: NNS_ENOMEM only;
 * a device whose file is absent or damaged has no line / block values (its
 * damage is listed in l->errors).
 * Ownership: struct ms_marey_lines owns its arrays; op names and device /
 * stage names point into the ms_marey it was computed from, which must be
 * kept beside it. ms_marey_lines_release frees it.
 */
#ifndef NNS_ANALYSIS_MS_MAREY_LINES_H
#define NNS_ANALYSIS_MS_MAREY_LINES_H

#include "analysis/ms_memory.h"
#include "common/err.h"
#include "common/vec.h"
#include "importers/ms_flops.h"
#include "importers/ms_parallel.h"

struct ms_marey_pt {
	double x, y;
	const char *op; /* in the ms_marey's map */
	size_t seq;	/* file order, for ties */
};

struct ms_marey_line {
	const char *device;
	VEC(struct ms_marey_pt) pts;
};

struct ms_marey_block {
	const char *name; /* "device<id>" or "stage<k>" */
	const char *stage;
	int is_stage;
	double flops, flops_s, flops_ratio, flops_s_ratio; /* MFLOPs, GFLOPS */
	double peak, capacity, mem_ratio;		   /* bytes */
};

struct ms_marey_lines {
	VEC(struct ms_marey_line) flops, mem;
	double flops_min, flops_max, mem_min, mem_max; /* NAN without lines */
	VEC(struct ms_marey_block) blocks;
	VEC(char *) errors; /* "<file>: why", owned */
};

/* One device's data (either may be NULL): its points and its block values
 * into l. dev is the device's index in m->maps. */
int ms_marey_lines_add(struct ms_marey_lines *l, const struct ms_marey *m, size_t dev,
		       const struct ms_flops *fl, const struct ms_mem_result *mr,
		       const struct ms_mem_file *mf, struct nns_err *err);
/* After every device: the ranges, the ratios and the stage blocks. */
int ms_marey_lines_finish(struct ms_marey_lines *l, const struct ms_marey *m, struct nns_err *err);
/* ms_marey_lines_init + every device of m->maps read from src->dir (src->dev
 * unused) + finish. */
int ms_marey_lines_load(struct ms_marey_lines *l, const struct ms_marey *m,
			const struct ms_src *src, struct nns_err *err);

void ms_marey_lines_init(struct ms_marey_lines *l);
void ms_marey_lines_release(struct ms_marey_lines *l);

/* The whole Marey document of one step: the stage timeline and its lines.
 * rc NNS_OK (m and l filled), else m / l empty and err says why. */
struct ms_marey_doc {
	int rc;
	struct nns_err err;
	struct ms_marey m;
	struct ms_marey_lines l;
};

/* ms_marey_load(src, step) + ms_marey_lines_load; returns d->rc
 * (NNS_EINVAL: a bad step, named in d->err). */
int ms_marey_doc_load(struct ms_marey_doc *d, const struct ms_src *src, const char *step);
void ms_marey_doc_release(struct ms_marey_doc *d);

#endif
