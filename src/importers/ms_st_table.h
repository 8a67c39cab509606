/*
 * ms_st_table.h - the whole step_trace_raw_<dev>_detail_time.csv of one
 * MindSpore device (reference mindinsight.md, "Step trace"): the header's
 * column names and every row's cells as numbers (10 ns system counts; "-"
 * and other non-numbers read as NaN), the step_num column kept as text
 * ("1".."n", and "-" for the average row MindSpore writes last).
 *
 * Columns: step_num,start_point,end_point,total,fp_point,bp_point,
 * iteration_interval,fp_and_bp,tail, then per reduce (all-reduce stream)
 * field stream_<id>_<k>_start_point,stream_<id>_<k>_end_point,stream_<id>_<k>.
 *
 * Ownership: the table owns its strings and cells; ms_st_table_release()
 * frees them.
 */
#ifndef NNS_IMPORTERS_MS_ST_TABLE_H
#define NNS_IMPORTERS_MS_ST_TABLE_H

#include "common/err.h"
#include "importers/ms_src.h"

#include <stddef.h>

#define MS_ST_MAX_COLS 4096
#define MS_ST_MAX_ROWS 1000000

struct ms_st_table {
	char **cols; /* ncols names; cols[0] is "step_num" */
	size_t ncols;
	double *cells;	  /* nrows x ncols, row-major; column 0 unused (NaN) */
	char (*step)[16]; /* nrows step_num texts */
	size_t nrows;
};

/* Parses a CSV buffer; name is used in messages. NNS_OK, NNS_EFORMAT
 * (naming name:line), NNS_ENOMEM. On error t is empty. */
int ms_st_table_parse(struct ms_st_table *t, const char *buf, size_t n, const char *name,
		      struct nns_err *err);
/* Reads <dir>/step_trace_raw_<dev>_detail_time.csv (at most 1 GiB).
 * NNS_ENOTFOUND when absent. */
int ms_st_table_load(struct ms_st_table *t, const struct ms_src *s, struct nns_err *err);
void ms_st_table_release(struct ms_st_table *t);

/* Index of the column named name, or -1. */
int ms_st_col(const struct ms_st_table *t, const char *name);
/* Cell (row, column name): NaN when the column is absent or not a number. */
double ms_st_cell(const struct ms_st_table *t, size_t row, const char *name);

/* The fp_start / bp_end operator names of step_trace_point_info[_<dev>].json
 * (ms_point_info.c) into fp and bp (n bytes each, truncated). NNS_OK,
 * NNS_ENOTFOUND when there is no such file, NNS_EFORMAT. */
int ms_point_info_load(const struct ms_src *s, char *fp, char *bp, size_t n, struct nns_err *err);

#endif
