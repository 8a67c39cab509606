/*
 * fs.h - file-system helpers shared by the collector and the analyzer.
 *
 * fs_mkdirs() is `mkdir -p`: it creates dir and its missing parents (mode
 * 0777 before the umask), accepts what already exists, and checks that dir
 * is a directory in the end. Returns 0, NNS_EINVAL (empty or over
 * FS_PATH_MAX) or NNS_EIO with "<path>: <reason>" in err (err may be NULL).
 */
#ifndef NNS_COMMON_FS_H
#define NNS_COMMON_FS_H

#include "err.h"

#define FS_PATH_MAX 4096

int fs_mkdirs(const char *dir, struct nns_err *err);

#endif
