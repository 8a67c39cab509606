/*
 * outfile.h - file-system helpers for the writers in src/output: turning
 * worker/span/run names into safe path components (mkdir -p is fs_mkdirs
 * in common/fs.h), and writing a file atomically (a temporary file in the same
 * directory, renamed over the target only once it is complete, so a reader
 * never sees a half-written result and a failed write leaves no debris).
 */
#ifndef NNS_OUTPUT_OUTFILE_H
#define NNS_OUTPUT_OUTFILE_H

#include "common/err.h"

#include <stddef.h>
#include <stdio.h>

#define OUT_PATH_MAX 4096
#define OUT_NAME_MAX 200 /* longest sanitized path component */

/* Writes into dst (size >= 4) a single path component made from name:
 * bytes other than [A-Za-z0-9._+=@-] (and any '/') become '_', the result is
 * at most OUT_NAME_MAX bytes, and "", "." and ".." become "_", "_." and
 * "_..", so the component can never leave the directory it is joined to. */
void out_sanitize(char *dst, size_t size, const char *name);

/* Like out_sanitize for a relative path ("a/b/c"): each component is
 * sanitized, empty, "." and ".." components are dropped or neutralised.
 * An empty result becomes ".". */
void out_sanitize_rel(char *dst, size_t size, const char *rel);

/* dst = a "/" b. Returns NNS_OK, or NNS_EINVAL if it does not fit. */
int out_join(char *dst, size_t size, const char *a, const char *b, struct nns_err *err);

/* An atomically written file. */
struct out_file {
	FILE *f;
	char path[OUT_PATH_MAX];
	char tmp[OUT_PATH_MAX];
};

/* Opens a temporary file beside dir/name for writing (a new file, never
 * one reached through a symbolic link; the commit's rename replaces a link
 * at dir/name rather than following it). */
int out_file_open(struct out_file *o, const char *dir, const char *name, struct nns_err *err);
/* Closes the temporary file and renames it to its final name; on any
 * failure removes it. Always leaves o closed. */
int out_file_commit(struct out_file *o, struct nns_err *err);
/* Closes and removes the temporary file (o may be unopened). */
void out_file_abort(struct out_file *o);

/* Writes dir/name atomically with what fn(w, arg) writes to a JSON writer
 * of the given pretty depth (jsonw.h). NNS_OK, or the error naming the
 * file; nothing is left behind on failure. */
struct jsonw;
int out_json_file(const char *dir, const char *name, int pretty,
		  void (*fn)(struct jsonw *w, const void *arg), const void *arg,
		  struct nns_err *err);

#endif
