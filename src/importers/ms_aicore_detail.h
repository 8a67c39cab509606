/*
 * ms_aicore_detail.h - reads MindSpore's aicore_intermediate_<dev>_detail.csv
 * (header full_kernel_name,execution_time,execution_frequency; execution_time
 * = average ms per call) into MindInsight's "op statistics by op" rows
 * (upstream AicoreDetailAnalyser, without the op_info / FLOPs columns):
 *   op_name      = full_kernel_name          "Default/AssignAdd-op203"
 *   kernel_name  = after the last '/'        "AssignAdd-op203"
 *   kernel_type  = kernel_name before "-op"  "AssignAdd"
 *   avg_execution_time_us = round(execution_time * 1000, 3)
 * sorted by avg_execution_time_us descending (ties: file order).
 *
 * Bounds: MS_AD_MAX_ROWS rows, names capped at MS_AD_NAME_MAX-1 bytes, a
 * field longer than MS_AD_FIELD_MAX-1 bytes is an error naming the line.
 * Ownership: struct ms_ad owns its rows; ms_ad_release() frees them.
 */
#ifndef NNS_IMPORTERS_MS_AICORE_DETAIL_H
#define NNS_IMPORTERS_MS_AICORE_DETAIL_H

#include <stddef.h>

#include "common/err.h"
#include "common/vec.h"

#define MS_AD_MAX_ROWS 1000000
#define MS_AD_NAME_MAX 256
#define MS_AD_FIELD_MAX 1024

struct ms_ad_row {
	char op_name[MS_AD_NAME_MAX], kernel_name[MS_AD_NAME_MAX], kernel_type[MS_AD_NAME_MAX];
	double avg_execution_time_us;
	long execution_frequency;
	size_t order; /* data row index in the file */
};

struct ms_ad {
	VEC(struct ms_ad_row) rows;
};

/* NNS_OK, NNS_EFORMAT (err names the line and why), NNS_ENOMEM. */
int ms_ad_parse(struct ms_ad *t, const char *buf, size_t n, struct nns_err *err);
void ms_ad_release(struct ms_ad *t);

#endif
