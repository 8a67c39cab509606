/*
 * export_mstl.h - `nnscope export` of an msprof (cluster) timeline run:
 * MindInsight's merged timeline of the chosen ranks, sub-graphs, kind
 * (summary / detail) and sub-graph merging, as one Chrome-trace JSON array
 * (importers/ms_timeline.h).
 */
#ifndef NNS_CLI_EXPORT_MSTL_H
#define NNS_CLI_EXPORT_MSTL_H

#include "importers/run.h"

struct mstl_args {
	const char *ranks;     /* "0,1" or NULL: every rank */
	const char *subgraphs; /* "0,2" or NULL: every sub-graph */
	int summary;	       /* 1: Step Trace and Overlap Analysis only */
	int apart;	       /* 1: sub-graphs apart */
	int detail;	       /* 1: --detail given (the default kind, named) */
};

/* The msprof run of rs when the export is one of it: the only run holding
 * rank workers, when every run does, any timeline option (a) is given or
 * worker names one of its ranks; else NULL. */
const struct run *export_mstl_run(const struct run_set *rs, const struct mstl_args *a,
				  const char *worker);

/* Writes the timeline of r to out ('-': standard output). worker, when
 * given, is one rank ("rank_<r>"). CLI_OK or CLI_EINPUT after printing
 * why. */
int export_mstl(const struct run *r, const struct mstl_args *a, const char *worker, const char *out,
		int quiet);

#endif
