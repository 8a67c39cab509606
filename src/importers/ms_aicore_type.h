/*
 * ms_aicore_type.h - reads MindSpore's aicore_intermediate_<dev>_type.csv
 * (header kernel_type,total_time,execution_frequency,percent, or the older
 * op_type,execution_time,execution_frequency,percent of MindSpore <= 1.x that
 * names the same columns; total_time in ms, percent of all AI Core time)
 * into MindInsight's "op statistics by type" rows (AicoreTypeAnalyser):
 *   total_time_us = round(total_time * 1000, 2)
 *   avg_time_us   = round(total_time_us / execution_frequency, 3) (0 if 0 calls)
 *   total_percent = percent * 100 (upstream's value, kept as it is)
 * sorted by total_time_us descending (ties: file order).
 *
 * Bounds: MS_AT_MAX_ROWS rows, kernel_type capped at MS_AT_NAME_MAX-1 bytes,
 * any field longer than MS_AT_FIELD_MAX bytes is an error naming the line.
 * Ownership: the vector in struct ms_at belongs to the caller, freed by
 * ms_at_release(). buf need not be NUL-terminated.
 */
#ifndef NNS_IMPORTERS_MS_AICORE_TYPE_H
#define NNS_IMPORTERS_MS_AICORE_TYPE_H

#include <stddef.h>

#include "common/err.h"
#include "common/vec.h"

#define MS_AT_MAX_ROWS 100000
#define MS_AT_NAME_MAX 128
#define MS_AT_FIELD_MAX 256

struct ms_at_row {
	char kernel_type[MS_AT_NAME_MAX];
	double total_time_us, avg_time_us, total_percent;
	long execution_frequency;
	size_t order; /* data row index in the file */
};

struct ms_at {
	VEC(struct ms_at_row) rows;
};

/* NNS_OK, NNS_EFORMAT (err names the line and why), NNS_ENOMEM. */
int ms_at_parse(struct ms_at *t, const char *buf, size_t n, struct nns_err *err);
void ms_at_release(struct ms_at *t);

#endif
