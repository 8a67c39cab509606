/*
 * scan.h - what lies under the logdir of `nnscope serve`: its runs,
 * workers and spans (run discovery, importers/run.h), every file opened
 * beneath the logdir's descriptor (common/fs.h) so that a symbolic link
 * leading out is listed in run_set.skipped as refused rather than served,
 * and the size and mtime of a trace file.
 *
 * No state; nothing here knows the registry's entries.
 */
#ifndef NNS_SERVER_SCAN_H
#define NNS_SERVER_SCAN_H

#include "common/err.h"
#include "common/fs.h"
#include "importers/run.h"

#include <stdint.h>

/* Checks that logdir is a readable directory and writes its real path into
 * real (PATH_MAX bytes). NNS_OK, NNS_ENOTFOUND or NNS_EIO (message says
 * which). */
int scan_check_logdir(const char *logdir, char *real, struct nns_err *err);

/* Discovers the runs under root (the logdir held open) into rs; the
 * *.json / *.nnst / MindSpore files whose link resolves outside it are in
 * rs->skipped ("refused: resolves outside <logdir>"). rs is always left
 * valid: without runs when nothing was found, empty when the walk failed. */
void scan_logdir(struct run_set *rs, const struct fs_root *root);

/* Size and mtime (ns) of path, stat'ed beneath root; 0, or -1 when it
 * cannot be stat'ed or resolves outside. */
int scan_stat(const struct fs_root *root, const char *path, int64_t *size, int64_t *mtime_ns);

/* The mtime in ms of the newest trace file of run, 0 when none is found. */
int64_t scan_run_mtime_ms(const struct fs_root *root, const struct run *run);

#endif
