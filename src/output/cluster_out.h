/*
 * cluster_out.h - writers of the cluster analysis (analysis/cluster.h):
 * cluster.json and cluster.csv (cluster_json.c, docs/CLUSTER.md). Nothing
 * keeps a pointer to its arguments.
 */
#ifndef NNS_OUTPUT_CLUSTER_OUT_H
#define NNS_OUTPUT_CLUSTER_OUT_H

#include "analysis/cluster.h"
#include "output/jsonw.h"
#include "output/output.h"

/* Steps listed per rank in cluster.json. */
#define CL_JSON_STEPS_MAX 2000

/* One complete cluster.json object. */
void out_json_cluster(struct jsonw *w, const struct cl_result *c);

/* Writes dir/<stem>.json and, with csv, dir/<stem>.csv (creating dir),
 * atomically. NNS_OK or the first error. */
int out_write_cluster(const char *dir, const char *stem, const struct cl_result *c, int csv,
		      struct nns_err *err);

#endif
