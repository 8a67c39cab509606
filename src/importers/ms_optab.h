/*
 * ms_optab.h - MindSpore's GPU-mode and host CPU operator tables, read as
 * MindInsight's analysers read them (gpu_analyser.py: GpuOpTypeAnalyser,
 * GpuOpInfoAnalyser, GpuCudaActivityAnalyser; cpu_analyser.py:
 * CpuOpTypeAnalyser, CpuOpInfoAnalyser):
 *
 *   gpu_op_type_info_<dev>.csv   op_type, total_time_us, execution_frequency,
 *                                total_percent, avg_time_us
 *   gpu_op_detail_info_<dev>.csv op_side, op_type, op_name, op_full_name,
 *                                op_occurrences, op_total_time_us,
 *                                op_avg_time_us, proportion,
 *                                cuda_activity_cost_time_us,
 *                                cuda_activity_call_count
 *   gpu_activity_data_<dev>.csv  name, type, op_full_name, stream_id,
 *                                block_dim, grid_dim, occurrences,
 *                                total_duration_us, avg_duration_us,
 *                                max_duration_us, min_duration_us
 *   cpu_op_type_info_<dev>.csv   op_type, type_occurrences,
 *                                execution_frequency, total_compute_time_us,
 *                                avg_time_us, total_time_proportion
 *   cpu_op_detail_info_<dev>.csv op_side, op_type, op_name, full_op_name,
 *                                op_occurrences, op_total_time_us,
 *                                op_avg_time_us, total_proportion, subgraph
 *
 * Like upstream, the first line (the header) is skipped whatever it says
 * and the columns are taken BY POSITION (upstream _convert_field_type); each
 * output column names its source column and conversion:
 *   str   the text as it is;
 *   int   a whole number (upstream int());
 *   f     _format_float_data(x): round(x, 6) when x < 1, else round(x, 3);
 *   f100  _format_float_data(x * 100) (a fraction shown as percent);
 *   fus   _format_float_data(x * 1000) (the CPU files' ms shown as us).
 * The GPU type file's columns are reordered as upstream does (file: op_type,
 * occurrences, total, proportion, avg). Rows stay in file order (upstream's
 * query without a sort condition); a blank line is skipped.
 *
 * Bad input: a row with fewer fields than the table reads, a non-number
 * where a number is read, a field over MS_OT_FIELD_MAX bytes or more than
 * MS_OT_MAX_ROWS rows is NNS_EFORMAT naming "<file>:<line>"; nothing is kept
 * from that file (upstream raises ProfilerRawFileException / ValueError).
 *
 * Ownership: a struct ms_optab owns its cells (ms_optab_release frees
 * them). Borrowed: the spec tables are static.
 */
#ifndef NNS_IMPORTERS_MS_OPTAB_H
#define NNS_IMPORTERS_MS_OPTAB_H

#include <stddef.h>

#include "common/err.h"
#include "importers/ms_src.h"

#define MS_OT_MAX_ROWS 1000000
#define MS_OT_FIELD_MAX 65536
#define MS_OT_MAX_COLS 11

enum ms_ot_kind {
	MS_OT_GPU_TYPE,
	MS_OT_GPU_DETAIL,
	MS_OT_GPU_ACTIVITY,
	MS_OT_CPU_TYPE,
	MS_OT_CPU_DETAIL,
	MS_OT_N
};

enum ms_ot_conv { MS_OT_STR, MS_OT_INT, MS_OT_F, MS_OT_F100, MS_OT_FUS };

struct ms_ot_col {
	const char *name; /* the document's column name */
	int src;	  /* the file's column (0-based) */
	enum ms_ot_conv conv;
};

struct ms_ot_spec {
	const char *name; /* "gpu_op_type" ...: the document's key */
	const char *pre;  /* file name around the device id */
	const char *post; /* ".csv" */
	int ncols;	  /* output columns */
	int time_col;	  /* the column the report sorts by */
	const struct ms_ot_col *cols;
};

extern const struct ms_ot_spec ms_ot_specs[MS_OT_N];

/* One table: rows x spec->ncols cells; a string cell is an offset into
 * text (NUL-terminated), a number cell a double (an int is exact). */
struct ms_optab {
	const struct ms_ot_spec *spec;
	size_t rows;
	double *num; /* rows * ncols; unused for string cells */
	size_t *off; /* rows * ncols; unused for number cells */
	char *text;
	size_t text_len, text_cap;
};

/* The five tables of one device and how each read went: rc NNS_OK, or
 * NNS_ENOTFOUND (absent), or the error (msg "<path>:<line>: why"). */
struct ms_optabs {
	struct ms_optab t[MS_OT_N];
	int rc[MS_OT_N];
	struct nns_err err[MS_OT_N];
};

/* Parses buf (n bytes, need not be NUL-terminated) as the table kind;
 * name is the file's name for messages. */
int ms_optab_parse(struct ms_optab *t, enum ms_ot_kind kind, const char *buf, size_t n,
		   const char *name, struct nns_err *err);
void ms_optab_release(struct ms_optab *t);

static inline const char *ms_optab_str(const struct ms_optab *t, size_t row, int col)
{
	return t->text + t->off[row * (size_t)t->spec->ncols + (size_t)col];
}
static inline double ms_optab_num(const struct ms_optab *t, size_t row, int col)
{
	return t->num[row * (size_t)t->spec->ncols + (size_t)col];
}

/* Reads every table of device s; an absent file is rc NNS_ENOTFOUND, a
 * damaged one its error. Returns NNS_OK but for NNS_ENOMEM. */
int ms_optabs_load(struct ms_optabs *a, const struct ms_src *s);
void ms_optabs_release(struct ms_optabs *a);
/* 1 when any table was read. */
int ms_optabs_any(const struct ms_optabs *a, int first, int last);

/* _format_float_data: round(x, 6) when x < 1, else round(x, 3). */
double ms_ot_format(double x);

#endif
