/*
 * ms_optab_json.h - the documents of MindSpore's GPU-mode and host CPU op
 * tables (importers/ms_optab.h), as MindInsight's query answers them:
 *
 * ms_gpu_ops: {"gpu_op_type": TABLE|null, "gpu_op_detail": TABLE|null,
 *              "gpu_activity": TABLE|null, "errors": ["<path>:<line>: why"]}
 * ms_cpu_ops: {"cpu_op_type": TABLE|null, "cpu_op_detail": TABLE|null,
 *              "errors": [...]}
 * TABLE = {"col_name": [...], "object": [[cell, ...], ...], "size": n}
 * (upstream's query result without a condition: file order; a table whose
 * file is absent or damaged is null, a damaged one is named in errors).
 */
#ifndef NNS_OUTPUT_MS_OPTAB_JSON_H
#define NNS_OUTPUT_MS_OPTAB_JSON_H

#include "analysis/an_ms.h" /* re-exports importers/ms_optab.h */
#include "output/jsonw.h"

/* Writes the tables first..last of a as one document (see above). */
void out_json_ms_optabs(struct jsonw *w, const struct ms_optabs *a, int first, int last);
/* One TABLE object. */
void out_json_ms_optab(struct jsonw *w, const struct ms_optab *t);

#endif
