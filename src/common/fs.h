/*
 * fs.h - file-system helpers shared by the collector and the analyzer.
 *
 * fs_mkdirs() is `mkdir -p`: it creates dir and its missing parents (mode
 * 0777 before the umask), accepts what already exists, and checks that dir
 * is a directory in the end. Returns 0, NNS_EINVAL (empty or over
 * FS_PATH_MAX) or NNS_EIO with "<path>: <reason>" in err (err may be NULL).
 *
 * A struct fs_root confines opens to one directory tree (fs_beneath.c): the
 * root is held open as a descriptor, and every open through it resolves
 * the path from that descriptor, at open time, so that no symbolic link,
 * "..", absolute path or rename made after a check can lead outside it.
 * Linux openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) does it; where
 * openat2 is missing or refused (ENOSYS, EPERM from a seccomp filter) a
 * walk from the root's descriptor opens one component at a time with
 * O_NOFOLLOW and resolves each symbolic link by hand (readlinkat), refusing
 * any that leaves the root. Symbolic links that stay inside are followed,
 * absolute ones too when they name the root's real path; an absolute link
 * elsewhere, a ".." above the root or a link loop is refused (EXDEV,
 * ELOOP). The descriptor returned is the one the caller then reads, so what
 * is read is what was checked.
 *
 * Paths given to the *_beneath functions are those discovery built: the
 * root's path (as given, or its real path) followed by "/..."; any other
 * relative path is taken relative to the root, any other absolute path is
 * refused. A NULL root opens as open(2) does (the CLI, where the user names
 * the files).
 *
 * Threads: a root is read-only once opened; any number of threads may open
 * through it. Ownership: fs_root_open fills caller storage that
 * fs_root_close releases; the descriptors and streams returned belong to
 * the caller.
 */
#ifndef NNS_COMMON_FS_H
#define NNS_COMMON_FS_H

#include "err.h"

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#define FS_PATH_MAX 4096

int fs_mkdirs(const char *dir, struct nns_err *err);

struct fs_root {
	int fd;	       /* O_PATH descriptor of the root directory, -1 when closed */
	char *path;    /* as given, without trailing slashes ("/" stays "/") */
	char *real;    /* its real path when opened */
	int walk_only; /* 1: never openat2, always the O_NOFOLLOW walk (tests) */
};

/* Opens the directory path as a root. NNS_OK; NNS_ENOTFOUND (absent or not
 * a directory), NNS_EIO, NNS_ENOMEM with "<path>: <reason>" in err. */
int fs_root_open(struct fs_root *r, const char *path, struct nns_err *err);
/* Closes what fs_root_open opened (safe on a zeroed or closed root). */
void fs_root_close(struct fs_root *r);

/* open(path, flags, mode) confined to root (O_CLOEXEC is added): the
 * descriptor, or -1 with errno (EXDEV or ELOOP: it resolves outside root
 * or loops; else what open(2) says). */
int fs_open_beneath(const struct fs_root *root, const char *path, int flags, mode_t mode);
/* The same as a read-only binary stream, or NULL with errno. Opened with
 * O_NONBLOCK: a FIFO put in a file's place does not hang the open (its
 * reads fail); regular files read as ever. */
FILE *fs_fopen_beneath(const struct fs_root *root, const char *path);
/* The directory path as a stream for readdir (fdopendir of an O_DIRECTORY
 * descriptor opened beneath root), or NULL with errno. */
DIR *fs_opendir_beneath(const struct fs_root *root, const char *path);
/* stat(path) confined to root: 0, or -1 with errno as fs_open_beneath. */
int fs_stat_beneath(const struct fs_root *root, const char *path, struct stat *st);

/* 1 when errnum, from one of the above with this root, means the path was
 * refused because it resolves outside the root (EXDEV, ELOOP). */
int fs_refused(const struct fs_root *root, int errnum);
/* Why an open of path failed, without the path: "refused: resolves outside
 * <root>" for a refusal, else strerror(errnum). Into dst (size bytes). */
void fs_why(char *dst, size_t size, const struct fs_root *root, int errnum);
/* Sets err to "<path>: refused: resolves outside <root>" (NNS_EIO) for a
 * refusal, else "<path>: cannot open: <strerror>" with code; returns the
 * code set. */
int fs_open_error(struct nns_err *err, int code, const struct fs_root *root, const char *path,
		  int errnum);

#endif
