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
/* MindSpore devices only (report_ms.c): step-trace summary, op time by type. */
void rp_view_mindspore(FILE *f, const struct an_profile *p, const struct report_opts *o);
/* The job's parallel strategy and stage timeline (report_ms_parallel.c). */
void rp_view_ms_parallel(FILE *f, const struct an_profile *p, const struct report_opts *o);
void rp_view_cpu(FILE *f, const struct an_profile *p, const struct report_opts *o);

#endif
