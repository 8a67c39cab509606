/*
 * schema.h - one description per result table, driving every writer.
 *
 * A result table (the overview's steps, the operator and kernel tables,
 * memory, modules, the distributed view's comm ops, ...) is described once
 * as a list of columns: the name the JSON contract gives it, its type, its
 * unit and where the value lives in the analysis row struct (a field at an
 * offset, or a small function for computed values). The JSON documents
 * (json_out.c), the CSV tables (csv_out.c), the SQLite export
 * (schema_sql.c, sqlite_out.c) and the terminal report (report.c) all walk
 * these descriptions, so a column is named, typed and converted in one
 * place (schema_tables.c, schema_views.c) and the writers cannot drift apart.
 *
 * Writers take a selection: NULL for every column in schema order, or a
 * NULL-terminated list of column names in output order; an entry
 * "col:shown" writes column col under the name (or terminal title) shown.
 *
 * Nothing here owns memory: values point into the rows, the model's string
 * pool or the caller's sc_val buffer.
 */
#ifndef NNS_OUTPUT_SCHEMA_H
#define NNS_OUTPUT_SCHEMA_H

#include "analysis/analysis.h"
#include "common/err.h"
#include "output/jsonw.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum sc_type { SC_TEXT, SC_INT, SC_REAL, SC_BOOL };

/* How a value reads to people; SC_US values are stored as nanoseconds in
 * the rows and written as microseconds (doubles). */
enum sc_unit {
	SC_PLAIN = 0,
	SC_US,	   /* microseconds */
	SC_BYTES,  /* bytes */
	SC_COUNT,  /* a count: grouped digits in the terminal */
	SC_RATIO,  /* 0..1 */
	SC_PERCENT /* 0..100 */
};

/* Where a value lives in a row. */
enum sc_src {
	SC_F_I64,   /* int64_t at off */
	SC_F_I32,   /* int32_t / int at off */
	SC_F_NS,    /* int64_t nanoseconds at off (unit SC_US) */
	SC_F_DNS,   /* double nanoseconds at off (unit SC_US) */
	SC_F_DBL,   /* double at off */
	SC_F_STRID, /* uint32_t model string id at off; "" when none */
	SC_F_CHARS, /* char array at off */
	SC_F_PSTR,  /* const char * at off; NULL stays NULL */
	SC_F_FLT,   /* float at off */
	SC_F_FN	    /* computed by col->fn */
};

/* Context of a row: the model its string ids refer to, the row's index in
 * its table and one table-specific pointer (the memory device of a memory
 * row, the an_dist of a comm-op row, ...). */
struct sc_ctx {
	const struct model *m;
	size_t index;
	const void *aux;
};

#define SC_BUF 1024

struct sc_val {
	int null;	  /* the value is absent: JSON null, empty CSV/SQL NULL, "-" */
	int64_t i;	  /* SC_INT, SC_BOOL */
	double d;	  /* SC_REAL (microseconds for SC_US) */
	double ns;	  /* SC_US: the same value in nanoseconds, for the terminal */
	const char *s;	  /* SC_TEXT; NULL writes JSON null */
	int undefined;	  /* a stand-in (a ratio over 0 is 0): written as is, shown "-" */
	int omit;	  /* an optional member: left out of JSON objects, else absent */
	char buf[SC_BUF]; /* storage for computed text */
};

struct sc_col;
typedef void (*sc_get_fn)(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			  struct sc_val *v);

struct sc_col {
	const char *name;  /* JSON key, CSV header, SQL column */
	uint8_t type;	   /* enum sc_type */
	uint8_t unit;	   /* enum sc_unit */
	uint8_t src;	   /* enum sc_src */
	size_t off;	   /* field offset (SC_F_FN: the function's own use) */
	sc_get_fn fn;	   /* SC_F_FN */
	const char *title; /* terminal heading; NULL: the name */
	const char *doc;   /* one line for docs/SQL.md and `nnscope export --schema` */
};

struct sc_table {
	const char *name; /* SQL table name */
	const char *doc;
	const struct sc_col *cols;
	size_t ncols;
	size_t row_size; /* sizeof the row struct, for walking arrays */
};

/* The result tables (schema_tables.c, schema_views.c). */
extern const struct sc_table sc_steps;	    /* struct an_step */
extern const struct sc_table sc_operators;  /* struct an_op_row */
extern const struct sc_table sc_kernels;    /* struct an_kernel_row */
extern const struct sc_table sc_memory_ops; /* struct an_mem_op_row, aux = an_mem_device */
extern const struct sc_table
    sc_memory_allocs; /* struct an_mem_event, aux = an_mem_device; SQL memory_allocations */
extern const struct sc_table sc_memory_curve; /* struct an_mem_point, aux = an_mem_device */
extern const struct sc_table sc_modules;      /* struct an_module_row */
extern const struct sc_table sc_steptrace;    /* struct an_steptrace_row */
extern const struct sc_table sc_dist_workers; /* struct an_dist_worker */
extern const struct sc_table sc_comm_ops;     /* struct an_dist_comm_row, aux = an_dist */
extern const struct sc_table sc_diff_ops;     /* struct an_diff_row (the diff's "ops") */
extern const struct sc_table sc_dp_queues;    /* struct an_queue, aux = an_datapipe */
extern const struct sc_table sc_dp_steps;     /* struct an_dp_step */
extern const struct sc_table sc_cpu_threads;  /* struct an_cpu_thread */
extern const struct sc_table sc_cpu_stages;   /* struct an_cpu_stage */
extern const struct sc_table sc_cpu_series;   /* struct an_cpu_point, aux = "machine"/"process" */
extern const struct sc_table sc_host_events;  /* struct an_host_row */
extern const struct sc_table sc_temporal;     /* struct hta_temporal_dev (HTA) */
extern const struct sc_table sc_idle;	      /* struct hta_idle_stream (HTA) */
extern const struct sc_table sc_queue;	      /* struct hta_queue_stream, aux = hta_queue (HTA) */
extern const struct sc_table sc_membw;	      /* struct hta_membw_kind (HTA) */
extern const struct sc_table sc_launches;     /* struct hta_launch_row, aux = an_profile (HTA) */
extern const struct sc_table sc_ms_op_types;  /* struct ms_at_row (MindSpore AI Core by type) */
extern const struct sc_table sc_ms_ops;	      /* struct ms_ad_row (MindSpore AI Core by op) */
/* The other MindSpore and cluster tables (schema_ms.c); aux: where the
 * rows' names are kept. */
extern const struct sc_table sc_ms_steps;	  /* struct ms_step_row */
extern const struct sc_table sc_ms_step_summary;  /* struct ms_st_summary */
extern const struct sc_table sc_ms_flops_summary; /* struct ms_flops_summary */
extern const struct sc_table sc_ms_flops_ops;	  /* struct ms_flops_op, aux = ms_flops */
extern const struct sc_table sc_ms_aicpu_types;	  /* struct ms_aicpu_type, aux = ms_aicpu */
extern const struct sc_table sc_ms_aicpu_ops;	  /* struct ms_aicpu_op, aux = ms_aicpu */
extern const struct sc_table sc_ms_ds_ops;	  /* struct ms_ds_op, aux = ms_ds */
extern const struct sc_table sc_ms_ds_kernels;	  /* struct ms_ds_kernel, aux = ms_ds */
extern const struct sc_table sc_cluster_links;	  /* struct cl_link */
extern const struct sc_table sc_cluster_stages;	  /* struct cl_stage */
extern const struct sc_table sc_gpus;		  /* struct an_gpu */
/* The cluster's ranks, their steps and the proposals (schema_ms.c);
 * optional members are left out of the JSON (sc_val.omit). */
extern const struct sc_table sc_cluster_ranks;	   /* struct cl_rank */
extern const struct sc_table sc_cluster_steps;	   /* struct cl_step */
extern const struct sc_table sc_cluster_proposals; /* struct cl_proposal, aux = cl_result */
/* The live documents' row tables (schema_live.c). */
extern const struct sc_table sc_live_ranks; /* struct live_rank_row */

/* HTA's other row tables (schema_hta.c): the critical path, the launch
 * side and the time analyses' statistics. */
extern const struct sc_table sc_critpath_segments; /* struct hcp_seg */
extern const struct sc_table sc_critpath_top;	   /* struct sc_critpath_top, aux = hcp_result */
extern const struct sc_table sc_trace_diff;	   /* struct hcp_tdiff_row */
extern const struct sc_table sc_launch_dist;	   /* struct hta_dist (launches.json summary_us) */
extern const struct sc_table sc_annotations;	   /* struct hta_anno_row */
extern const struct sc_table sc_anno_kernels;	   /* struct hta_anno_kernel */
extern const struct sc_table sc_seq_ops;	   /* struct hta_seq_op */
extern const struct sc_table sc_seq_patterns;	   /* struct hta_seq_pattern */
extern const struct sc_table sc_stragglers;	   /* struct hta_straggler, aux = an_dist */
extern const struct sc_table sc_idle_gaps;	   /* struct hta_stats (idle.json intervals) */
extern const struct sc_table sc_describe;	   /* struct hta_describe (membw.json summary) */

/* A row of the critical path's top events: the path's weight summed by
 * (event name, class), built by its writer (hta_critpath_json.c). */
struct sc_critpath_top {
	uint32_t name; /* model string id */
	uint8_t cls;   /* enum hcp_class */
	uint8_t kind;  /* the event's kind */
	int64_t w;     /* summed weight, ns */
	int64_t n;     /* path edges summed */
};

/* The operator and kernel tables come in groupings: one schema, several
 * row sets, each with its JSON key, SQL table and columns. */
#define SC_OP_GROUPS 4
#define SC_KERNEL_GROUPS 2
struct sc_group {
	const char *key;      /* JSON key: "by_name", ... */
	const char *table;    /* SQL table: "operators", ... */
	const char *cols[16]; /* selection, NULL-terminated */
};
extern const struct sc_group sc_op_groups[SC_OP_GROUPS];
extern const struct sc_group sc_kernel_groups[SC_KERNEL_GROUPS];
const struct an_op_row *sc_op_group_rows(const struct an_ops *o, int g, size_t *n);
const struct an_kernel_row *sc_kernel_group_rows(const struct an_kernels *k, int g, size_t *n);

/* memory.json's per-device "ops" columns (memory_ops without device). */
extern const char *const sc_memory_op_cols[];

/* The column named name, or NULL. */
const struct sc_col *sc_col_find(const struct sc_table *t, const char *name);
/* Reads column c of row into v. */
void sc_get(const struct sc_col *c, const void *row, const struct sc_ctx *x, struct sc_val *v);
/* The i-th row of an array of t's rows. */
static inline const void *sc_row(const struct sc_table *t, const void *rows, size_t i)
{
	return (const char *)rows + i * t->row_size;
}

/* Resolves a selection entry ("col" or "col:shown") into the column and
 * the name to show; NULL when the table has no such column (a programming
 * error the unit tests catch). */
const struct sc_col *sc_pick(const struct sc_table *t, const char *entry, const char **shown);
/* A selection resolved once: the columns and the names to show, in
 * output order (entries naming no column are left out). */
#define SC_MAX_PICKS 32
struct sc_picks {
	size_t n;
	const struct sc_col *col[SC_MAX_PICKS];
	const char *shown[SC_MAX_PICKS];
};
void sc_picks(struct sc_picks *ps, const struct sc_table *t, const char *const *sel);

/* JSON (schema_json.c): the members of one row (no braces), one row as an
 * object, and "key": [rows...]. */
void sc_json_fields(struct jsonw *w, const struct sc_table *t, const void *row,
		    const struct sc_ctx *x, const char *const *sel);
void sc_json_row(struct jsonw *w, const struct sc_table *t, const void *row, const struct sc_ctx *x,
		 const char *const *sel);
void sc_json_rows(struct jsonw *w, const char *key, const struct sc_table *t, const void *rows,
		  size_t n, const struct sc_ctx *x, const char *const *sel);

/* CSV (schema_csv.c): RFC 4180 header and rows; "\n" line ends. */
void sc_csv_header(FILE *f, const struct sc_table *t, const char *const *sel);
void sc_csv_row(FILE *f, const struct sc_table *t, const void *row, const struct sc_ctx *x,
		const char *const *sel);
/* rows[0..n) of t, the selection resolved once */
void sc_csv_rows(FILE *f, const struct sc_table *t, const void *rows, size_t n,
		 const struct sc_ctx *x, const char *const *sel);

/* Terminal (schema_term.c). sc_term_cols fills cols[0..n) for a selection:
 * titles from "col:Title" entries or the column's title, text and
 * booleans left-aligned, numbers right-aligned, the first text column
 * truncated with trunc (enum tb_trunc); returns n (at most max).
 * sc_term_row appends one row's cells: µs, counts, bytes, ratios and
 * percents as table.h formats them, booleans yes/no, absent values "-". */
struct table;
struct tb_col;
int sc_term_cols(struct tb_col *cols, int max, const struct sc_table *t, const char *const *sel,
		 int trunc);
void sc_term_row(struct table *tb, const struct sc_table *t, const void *row,
		 const struct sc_ctx *x, const char *const *sel);

#endif
