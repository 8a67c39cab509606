/*
 * ms_flops.h - MindSpore's FLOPs files of one device (ms_src.h):
 *
 *   flops_<dev>.txt          per-op FLOPs, "name, v1, v2, ..." lines (not
 *                            quoted CSV: upstream splits on ','), header
 *                            full_kernel_name|op_full_name then either
 *     cube/vector: MFLOPs(10^6 cube), GFLOPS(10^9 cube), FLOPS utilization(cube),
 *                  MFLOPs(10^6 vector), GFLOPS(10^9 vector), FLOPS utilization(vec)
 *                  (any subset, columns found by name), or
 *     legacy:      FLOPs|MFLOPs(10^6), FLOPS|GFLOPS(10^9), FLOPS utilization[(%)]
 *     Unknown columns are ignored; a value "-" is absent (NAN); a line whose
 *     second field is empty is skipped (as MindInsight's AicoreDetailAnalyser).
 *   flops_summary_<dev>.json {"FLOPs": MFLOPs, "FLOPS": GFLOPS,
 *                            "FLOPS_Utilization": %, optional cube_/vec_ parts}
 *                            (MindInsight FlopsAnalyser.get_flops_summary
 *                            passes the file through; so does nnscope)
 *   flops_scope_<dev>.json   {"data": {"nodes": [{"name"}], "links":
 *                            [{"source","target","value" (MFLOPs)}]},
 *                            "max_scope_num"} (the scope Sankey diagram).
 *
 * Absent numbers are NAN. Bounds: MS_FL_MAX_OPS op lines, MS_FL_NAME_MAX
 * bytes per name, MS_FL_MAX_LINKS links. Errors: NNS_EFORMAT "file:line:
 * why", NNS_ENOMEM. Ownership: struct ms_flops owns everything;
 * ms_flops_release() frees it (and leaves it empty, reusable).
 */
#ifndef NNS_IMPORTERS_MS_FLOPS_H
#define NNS_IMPORTERS_MS_FLOPS_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/vec.h"
#include "importers/ms_src.h"

#define MS_FL_MAX_OPS 2000000
#define MS_FL_NAME_MAX 8192
#define MS_FL_MAX_LINKS 1000000

struct ms_flops_op {
	size_t name;			 /* offset in ms_flops.names */
	double mflops, gflops, util_pct; /* legacy single columns */
	double mflops_cube, gflops_cube, util_cube_pct;
	double mflops_vec, gflops_vec, util_vec_pct;
	size_t line; /* line in the file */
};

struct ms_flops_summary {
	double mflops, gflops, util_pct; /* FLOPs, FLOPS, FLOPS_Utilization */
	double mflops_cube, mflops_vec;	 /* cube_FLOPs, vec_FLOPs (NAN if absent) */
	double gflops_cube, gflops_vec;	 /* cube_FLOPS, vec_FLOPS */
};

struct ms_flops_link {
	size_t source, target; /* offsets in names */
	double mflops;	       /* value */
};

struct ms_flops {
	int has_ops, has_summary, has_scope; /* which files were read */
	VEC(struct ms_flops_op) ops;	     /* file order */
	VEC(uint32_t) by_name;		     /* indices of ops sorted by name */
	VEC(char) names;		     /* NUL-terminated strings */
	struct ms_flops_summary sum;
	long max_scope_num;	 /* -1 if absent */
	VEC(size_t) scope_nodes; /* node names (offsets in names), file order */
	VEC(struct ms_flops_link) links;
};

void ms_flops_init(struct ms_flops *f);
void ms_flops_release(struct ms_flops *f);

/* Parsers of one buffer each (name is used in messages). They add to f;
 * on error the part they were reading is left empty. */
int ms_flops_parse_ops(struct ms_flops *f, const char *buf, size_t n, const char *name,
		       struct nns_err *err);
int ms_flops_parse_summary(struct ms_flops *f, const char *buf, size_t n, const char *name,
			   struct nns_err *err);
int ms_flops_parse_scope(struct ms_flops *f, const char *buf, size_t n, const char *name,
			 struct nns_err *err);

/* ms_flops_init + reads the three files that exist. Absent files leave
 * their has_ flag 0 (not an error). On an error, the files read before it
 * stay in f (the caller still releases f). */
int ms_flops_load(struct ms_flops *f, const struct ms_src *s, struct nns_err *err);

const char *ms_flops_str(const struct ms_flops *f, size_t off);
/* The op line for a full kernel name (the first one in file order when
 * repeated), or NULL. */
const struct ms_flops_op *ms_flops_find(const struct ms_flops *f, const char *full_name);

#endif
