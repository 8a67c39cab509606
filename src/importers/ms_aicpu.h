/*
 * ms_aicpu.h - MindSpore's AI CPU op calls of one device and MindInsight's
 * two AICPU tables (upstream AicpuTypeAnalyser / AicpuDetailAnalyser, newest
 * form: per-type sums and per-kernel averages), from
 *
 *   aicpu_intermediate_<dev>.csv   serial_number,kernel_type|op_type,total_time,
 *                                  dispatch_time[,execution_time],run_start,run_end
 *                                  (times in ms; the 6-column form predates
 *                                  execution_time), or, when it is absent,
 *   output_data_preprocess_aicpu_<dev>.txt  whitespace columns serial_number
 *                                  node_type_name total_time(ms) dispatch_time(ms)
 *                                  run_start run_end, an optional "----" rule and the
 *                                  footer "AI CPU Total Time(ms): X".
 *
 * The second column is the kernel name (e.g. "GetNext" or "Cast-op12");
 * kernel_type = the name up to the first '-'.
 *   by type: total_time_us = round(sum(total_time) * 1000, 3),
 *            execution_frequency = calls,
 *            percent = round(total_time_us / (sum over all types of the
 *                      unrounded totals) * 100, 2)   (0 when that sum is 0);
 *   by op:   avg_execution_time_us = round(sum(total_time) / calls * 1000, 3),
 *            avg_dispatch_time_us  = round(sum(dispatch_time) / calls * 1000, 3),
 *            execution_frequency = calls.
 * Upstream returns both in first-appearance order and lets the UI sort;
 * nnscope sorts by total / average time descending, ties in first-appearance
 * order. The upstream conformance classes for AICPU never ran (their values
 * are an older averaging definition), so the tests use hand-computed values.
 *
 * Bounds: MS_AICPU_MAX_CALLS calls, MS_AICPU_NAME_MAX bytes per name.
 * Errors NNS_EFORMAT "file:line: why", NNS_ENOMEM. Ownership: struct
 * ms_aicpu owns its arrays; ms_aicpu_release() frees them.
 */
#ifndef NNS_IMPORTERS_MS_AICPU_H
#define NNS_IMPORTERS_MS_AICPU_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/vec.h"
#include "importers/ms_src.h"

#define MS_AICPU_MAX_CALLS 4000000
#define MS_AICPU_NAME_MAX 1024

struct ms_aicpu_call {
	long serial;
	size_t name;			       /* offset in ms_aicpu.s */
	double total_ms, dispatch_ms, exec_ms; /* exec_ms NAN when the file has none */
	double run_start, run_end;	       /* as in the file (device counter) */
	size_t line;
};

struct ms_aicpu_type {
	size_t type; /* offset in s */
	double total_time_us, percent;
	long execution_frequency;
	size_t order; /* first appearance */
};

struct ms_aicpu_op {
	size_t name, type; /* offsets in s */
	double avg_execution_time_us, avg_dispatch_time_us;
	long execution_frequency;
	size_t order;
};

enum ms_aicpu_source { MS_AICPU_NONE, MS_AICPU_CSV, MS_AICPU_TXT };

struct ms_aicpu {
	int source;			 /* enum ms_aicpu_source: which file was read */
	double footer_ms;		 /* the txt footer's total, NAN otherwise */
	VEC(struct ms_aicpu_call) calls; /* file order */
	VEC(struct ms_aicpu_type) types;
	VEC(struct ms_aicpu_op) ops;
	VEC(char) s;
};

/* Parse one buffer (name for messages) and compute both tables. On error a
 * is left empty. */
int ms_aicpu_parse_csv(struct ms_aicpu *a, const char *buf, size_t n, const char *name,
		       struct nns_err *err);
int ms_aicpu_parse_txt(struct ms_aicpu *a, const char *buf, size_t n, const char *name,
		       struct nns_err *err);
/* The csv, else the txt, else no data (source MS_AICPU_NONE, NNS_OK). */
int ms_aicpu_load(struct ms_aicpu *a, const struct ms_src *s, struct nns_err *err);
void ms_aicpu_release(struct ms_aicpu *a);

static inline const char *ms_aicpu_str(const struct ms_aicpu *a, size_t off)
{
	return off < a->s.n ? a->s.v + off : "";
}

#endif
