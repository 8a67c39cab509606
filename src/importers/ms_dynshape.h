/*
 * ms_dynshape.h - MindSpore's dynamic_shape_info_<dev>.json (GPU dynamic
 * shape runs): per-step operator and CUDA kernel time, the data of
 * MindInsight's GpuOpTypeInfoAnalyser / GpuCudaTypeInfoAnalyser:
 *
 *   {"operator":      {"<step>": [{"step", "op_side", "op_type", "op_name",
 *                                  "dur", "shape_info": ["[32, 1]", ...]}]},
 *    "kernel":        {"<step>": [{"step", "op_type", "op_name", "op_full_name",
 *                                  "dur", "block_dim", "grid_dim"}]},
 *    "operator_type": {"<step>": {"<op_type>": [total, calls, avg]}},
 *    "kernel_type":   {"<step>": {"<kernel>": [total, calls, avg, op_full_name]}}}
 *
 * dur and the type totals are microseconds (MindSpore's GPU profiler unit).
 * Rows keep file order (steps in key order, rows in list order).
 * The per-type series (the chart) are read from operator_type / kernel_type
 * as upstream does: for each type, one value per step of the file, 0 when
 * the type did not run in that step; upstream charts the average [2] of the
 * first 3 types of step "1" unless asked for others (default_types below
 * are the first 3 types of the first step in the file).
 *
 * Every section is optional. Bounds: MS_DS_MAX_ROWS rows per section,
 * MS_DS_MAX_CELLS type x step cells. Errors NNS_EFORMAT "file:line: why".
 * Ownership: struct ms_ds owns its arrays; ms_ds_release() frees them.
 */
#ifndef NNS_IMPORTERS_MS_DYNSHAPE_H
#define NNS_IMPORTERS_MS_DYNSHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/vec.h"
#include "importers/ms_src.h"

#define MS_DS_MAX_ROWS 4000000
#define MS_DS_MAX_CELLS 4000000

struct ms_ds_op {
	long step;
	size_t side, type, name; /* offsets in ms_ds.s */
	double dur_us;
	size_t shape0;	 /* first shape string in ms_ds.shapes */
	uint32_t nshape; /* number of shape strings (inputs) */
};

struct ms_ds_kernel {
	long step;
	size_t type, name, full_name, block_dim, grid_dim; /* offsets in s */
	double dur_us;
};

struct ms_ds_cell {
	uint32_t step, type; /* indices in the series' steps / types */
	double total_us, avg_us;
	long calls;
};

/* operator_type or kernel_type */
struct ms_ds_series {
	VEC(long) steps;	      /* step ids, key order */
	VEC(size_t) types;	      /* names (offsets in s), first appearance */
	VEC(size_t) full_names;	      /* kernel_type: op_full_name per type ("" if none) */
	VEC(struct ms_ds_cell) cells; /* sparse, in file order */
};

struct ms_ds {
	int has; /* the file was read */
	VEC(struct ms_ds_op) ops;
	VEC(struct ms_ds_kernel) kernels;
	struct ms_ds_series op_types, kernel_types;
	VEC(size_t) shapes; /* offsets in s */
	VEC(char) s;
};

int ms_ds_parse(struct ms_ds *d, const char *buf, size_t n, const char *name, struct nns_err *err);
/* Absent file: NNS_OK, d->has 0. */
int ms_ds_load(struct ms_ds *d, const struct ms_src *s, struct nns_err *err);
void ms_ds_release(struct ms_ds *d);

static inline const char *ms_ds_str(const struct ms_ds *d, size_t off)
{
	return off < d->s.n ? d->s.v + off : "";
}

#endif
