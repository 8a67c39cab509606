/*
 * changed.c - saying that an input file changed while it was read
 * (changed.h).
 */
#include "importers/changed.h"

#include <stdio.h>
#include <string.h>

void changed_stamp_stat(struct changed_stamp *s, const struct stat *st)
{
	memset(s, 0, sizeof(*s));
	if (!S_ISREG(st->st_mode))
		return;
	s->ok = 1;
	s->size = (int64_t)st->st_size;
	s->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

void changed_stamp_fd(struct changed_stamp *s, int fd)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (fd >= 0 && fstat(fd, &st) == 0)
		changed_stamp_stat(s, &st);
}

void changed_stamp_path(struct changed_stamp *s, const char *path)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (path && stat(path, &st) == 0)
		changed_stamp_stat(s, &st);
}

/* "grew by N bytes while read" (or shrank, or was rewritten) into what
 * (size bytes): 1 when after differs from before, else 0. */
static int what_changed(const struct changed_stamp *b, const struct changed_stamp *a, char *what,
			size_t size)
{
	what[0] = '\0';
	if (!b->ok || !a->ok)
		return 0;
	if (a->size > b->size)
		snprintf(what, size, "grew by %lld bytes while read",
			 (long long)(a->size - b->size));
	else if (a->size < b->size)
		snprintf(what, size, "shrank by %lld bytes while read (from %lld to %lld bytes)",
			 (long long)(b->size - a->size), (long long)b->size, (long long)a->size);
	else if (a->mtime_ns != b->mtime_ns)
		snprintf(what, size, "was rewritten while read (same size, new modification time)");
	return what[0] != '\0';
}

/* The message of err without a leading "<path>: ". */
static const char *after_path(const char *emsg, const char *path)
{
	size_t n = strlen(path);

	return strncmp(emsg, path, n) == 0 && strncmp(emsg + n, ": ", 2) == 0 ? emsg + n + 2 : emsg;
}

int changed_check(const char *path, const struct changed_stamp *before,
		  const struct changed_stamp *after, int64_t covered, int rc, struct model *m,
		  struct nns_err *err)
{
	char what[160], msg[NNS_ERR_MSG_MAX], old[NNS_ERR_MSG_MAX];

	if (!what_changed(before, after, what, sizeof(what)))
		return rc;
	snprintf(old, sizeof(old), "%s", err && err->msg[0] ? err->msg : "");
	if (rc != NNS_OK && rc != NNS_ETRUNC) /* failed: still being written? */
		return nns_err_set(err, rc, "%s%s(the file %s: is it still being written?)", old,
				   old[0] ? " " : "", what);
	snprintf(msg, sizeof(msg), "%s: %s; the analysis covers the first %lld bytes", path, what,
		 (long long)(covered > 0 ? covered : 0));
	if (m) {
		m->diag.truncated = 1;
		if (!m->diag.first_problem[0])
			snprintf(m->diag.first_problem, sizeof(m->diag.first_problem), "%s", msg);
	}
	if (rc == NNS_OK || !old[0])
		return nns_err_set(err, NNS_ETRUNC, "%s", msg);
	return nns_err_set(err, NNS_ETRUNC, "%s (%s)", msg, after_path(old, path));
}
