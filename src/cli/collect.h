/*
 * collect.h - `nnscope collect` (cmd_collect.c) and what `nnscope analyse`
 * needs to read its output (collect_run.c).
 *
 * A collected run is RUN/host<N>/... (one directory per host of the hosts
 * file, in its order, holding what was under the remote path) plus
 * RUN/host_ips_mapping.txt, whose first line is COLLECT_MAPPING_MAGIC and
 * whose other lines are "host<N> sha256:<hex>": the alias and a salted
 * hash of "[user@]host:port" (salt random per collect and not stored), so
 * the real addresses are never written and equal hashes mean the same
 * address. docs/CLUSTER.md.
 */
#ifndef NNS_CLI_COLLECT_H
#define NNS_CLI_COLLECT_H

#include "common/err.h"
#include "importers/run.h"

#define COLLECT_MAPPING_FILE "host_ips_mapping.txt"
#define COLLECT_MAPPING_MAGIC "# nnscope collect"

/* When root is a collected run: the runs found under its host<N>
 * directories become one run (named and placed like root), each worker
 * renamed "host<N>_<worker>", so that the ranks of every host are one
 * cluster. Other runs, and directories that are not collected runs, are
 * left as they are. NNS_OK, or NNS_ENOMEM (rs released). */
int collect_merge_runs(struct run_set *rs, const char *root, struct nns_err *err);

#endif
