/*
 * changed.h - saying that an input file changed while it was read.
 *
 * An importer takes a stamp (size, modification time) of its input when it
 * opens it and another after the load; when they differ, changed_check()
 * turns the load's result into one that says so, naming the file, by how
 * much it grew (or shrank) and how many of its bytes the analysis covers:
 *   "<file>: grew by N bytes while read; the analysis covers the first M bytes"
 * A load that was complete becomes NNS_ETRUNC with that message (the model
 * stays usable: m->diag.truncated is set, and first_problem when it was
 * empty); a truncated one (NNS_ETRUNC) gets it before its own message; a
 * failed one gets "(the file grew by N bytes while read: is it still being
 * written?)" after its own.
 */
#ifndef NNS_IMPORTERS_CHANGED_H
#define NNS_IMPORTERS_CHANGED_H

#include "common/err.h"
#include "model/model.h"

#include <stdint.h>
#include <sys/stat.h>

struct changed_stamp {
	int ok; /* 0: the stat failed, nothing to compare */
	int64_t size;
	int64_t mtime_ns;
};

/* The stamp of a stat result, an open descriptor (fstat) or a path
 * (stat); only regular files get one (ok). */
void changed_stamp_stat(struct changed_stamp *s, const struct stat *st);
void changed_stamp_fd(struct changed_stamp *s, int fd);
void changed_stamp_path(struct changed_stamp *s, const char *path);

/* Compares the stamps taken before and after a load of path whose status
 * was rc (with err and m; m may be NULL) and, when they differ, amends the
 * result as the header says. covered: the bytes of the file the model was
 * built from. Returns the new status (rc when nothing changed). */
int changed_check(const char *path, const struct changed_stamp *before,
		  const struct changed_stamp *after, int64_t covered, int rc, struct model *m,
		  struct nns_err *err);

#endif
