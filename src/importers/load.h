/*
 * load.h - loading one trace file of any supported format into a model,
 * plus the MindSpore host_info CSVs that belong to it: the step the CLI
 * and the server share.
 *
 * Ownership: the caller owns the model (load_trace does model_init; the
 * caller calls model_release when the result is NNS_OK or NNS_ETRUNC).
 */
#ifndef NNS_IMPORTERS_LOAD_H
#define NNS_IMPORTERS_LOAD_H

#include "importers/kineto.h"
#include "importers/run.h"
#include "model/model.h"

/* Loads path into m (model_init done here): .nnst files (by their magic)
 * with the nnst importer, anything else with the Kineto importer. Returns
 * the importer's status (NNS_ETRUNC: m usable, err says what was cut); on
 * other errors m is released. With ko->root every file is opened beneath
 * that directory (common/fs.h): a path that resolves outside it is refused
 * at its open ("<path>: refused: resolves outside <root>", NNS_EIO), and
 * m->root keeps it for the files read later (host_info CSVs, MindSpore's
 * side files). */
int load_trace(struct model *m, const char *path, const struct kineto_opts *ko,
	       struct nns_err *err);

/* Adds the host_info CSV rows of run r (may be NULL) that belong to m's
 * process: with a known pid (nnscope traces) the rows of that pid and its
 * children from every CSV; else every CSV when the run has one worker, or
 * the CSV named after m's rank. Each CSV that cannot be read is reported
 * through warn(ctx, path, message) (warn may be NULL) and skipped. */
void load_host_info(struct model *m, const struct run *r,
		    void (*warn)(void *ctx, const char *path, const char *msg), void *ctx);

#endif
