/*
 * scan.h - what lies under the logdir of `nnscope serve`: its runs,
 * workers and spans (run discovery, importers/run.h), without the files
 * whose real path leaves the logdir (symlinks pointing out), and the size
 * and mtime of a trace file.
 *
 * No state; nothing here knows the registry's entries.
 */
#ifndef NNS_SERVER_SCAN_H
#define NNS_SERVER_SCAN_H

#include "common/err.h"
#include "importers/run.h"

#include <stdint.h>

/* Checks that logdir is a readable directory and writes its real path into
 * real (PATH_MAX bytes). NNS_OK, NNS_ENOTFOUND or NNS_EIO (message says
 * which). */
int scan_check_logdir(const char *logdir, char *real, struct nns_err *err);

/* Discovers the runs under logdir (real path logdir_real) into rs, less
 * the spans whose file lies outside logdir_real. rs is always left valid:
 * empty when the walk failed. */
void scan_logdir(struct run_set *rs, const char *logdir, const char *logdir_real);

/* Size and mtime (ns) of path; 0, or -1 when it cannot be stat'ed. */
int scan_stat(const char *path, int64_t *size, int64_t *mtime_ns);

/* The mtime in ms of the newest trace file of run, 0 when none is found. */
int64_t scan_run_mtime_ms(const struct run *run);

#endif
