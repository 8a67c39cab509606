/*
 * report_int.h - helpers shared by the terminal report files (report.c,
 * report_dist.c); not used outside src/output.
 */
#ifndef NNS_OUTPUT_REPORT_INT_H
#define NNS_OUTPUT_REPORT_INT_H

#include "output/report.h"

#include <stddef.h>
#include <stdint.h>

/* A sort key: rows sorted by key descending, then index ascending. */
struct rp_key {
	int64_t key;
	size_t idx;
};

void rp_sort_desc(struct rp_key *k, size_t n);
/* Writes s[0..n) (up to a NUL) with control characters (C0, DEL, C1)
 * replaced by spaces: trace names must not drive the terminal. */
void rp_put_safe(FILE *f, const char *s, size_t n);
void rp_heading(FILE *f, const struct report_opts *o, const char *title);
void rp_section(FILE *f, const struct report_opts *o, const char *title);
const char *rp_str(const struct an_profile *p, uint32_t id);
/* Prints `first`, then text word-wrapped at width with `indent` spaces of
 * hanging indent (first is assumed to be indent columns wide). */
void rp_wrap(FILE *f, const char *text, int width, const char *first, int indent);

/* report_extra.c: the data-pipeline and CPU views of one profile. */
void rp_view_datapipe(FILE *f, const struct an_profile *p, const struct report_opts *o);
/* MindSpore devices only (report_ms.c): the RV_MS_* tables selected in
 * views; RV_OVERVIEW / RV_OPERATORS add what MindInsight's summary shows. */
void rp_view_mindspore(FILE *f, const struct an_profile *p, unsigned views,
		       const struct report_opts *o);
/* report_ms_more.c: AI CPU, GPU / host CPU op tables, MindData, FLOPs,
 * dynamic shape, AI Core by operator. full: the view was asked for by name
 * (all its tables, and a line when its file is absent); else the summary. */
struct ms_profile;
void rp_ms_aicpu(FILE *f, const struct ms_profile *mp, int full, const struct report_opts *o);
void rp_ms_optabs(FILE *f, const struct ms_profile *mp, int gpu, int full,
		  const struct report_opts *o);
void rp_ms_minddata(FILE *f, const struct ms_profile *mp, int full, const struct report_opts *o);
void rp_ms_flops(FILE *f, const struct ms_profile *mp, int full, const struct report_opts *o);
void rp_ms_dynshape(FILE *f, const struct ms_profile *mp, const struct report_opts *o);
void rp_ms_op_detail(FILE *f, const struct ms_profile *mp, const struct report_opts *o);
/* MindSpore devices with memory_usage_<dev>.pb (report_ms_memory.c); asked:
 * the view was named (`--view ms_memory`), so a device without the file
 * says so. */
void rp_view_ms_memory(FILE *f, const struct an_profile *p, int asked, const struct report_opts *o);
/* The job's parallel strategy and stage timeline (report_ms_parallel.c). */
void rp_view_ms_parallel(FILE *f, const struct an_profile *p, const struct report_opts *o);
void rp_view_cpu(FILE *f, const struct an_profile *p, const struct report_opts *o);

#endif
