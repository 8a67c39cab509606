/*
 * scan.c - walking the logdir for runs (scan.h): run discovery, then the
 * spans whose file resolves outside the logdir are dropped, so that a
 * symlink cannot serve a file from elsewhere.
 */
#include "server/scan.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int scan_check_logdir(const char *logdir, char *real, struct nns_err *err)
{
	struct stat st;

	/* the logdir first: it is the argument people get wrong */
	if (stat(logdir, &st) != 0 || !S_ISDIR(st.st_mode) || !realpath(logdir, real))
		return nns_err_set(err, NNS_ENOTFOUND, "%s: %s", logdir,
				   access(logdir, F_OK) == 0 ? "not a directory"
							     : "no such directory");
	if (access(logdir, R_OK | X_OK) != 0)
		return nns_err_set(err, NNS_EIO, "%s: cannot read this directory (%s)", logdir,
				   strerror(errno));
	return NNS_OK;
}

/* Is path inside root (a real path) once symlinks are resolved? */
static int inside(const char *root, const char *path)
{
	char real[PATH_MAX];
	size_t n = strlen(root);

	if (!realpath(path, real))
		return 0;
	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == 0);
}

/* Drops the spans whose file lies outside root from rs, in place. */
static void drop_outside(struct run_set *rs, const char *root)
{
	for (size_t i = 0; i < rs->runs.n; i++) {
		struct run *run = &rs->runs.v[i];

		for (size_t j = 0; j < run->workers.n; j++) {
			struct run_worker *w = &run->workers.v[j];
			size_t k = 0;

			while (k < w->spans.n) {
				struct run_span *s = &w->spans.v[k];

				if (inside(root, s->path)) {
					k++;
					continue;
				}
				free(s->name);
				free(s->suffix);
				free(s->path);
				memmove(s, s + 1, (w->spans.n - k - 1) * sizeof(*s));
				w->spans.n--;
			}
		}
	}
}

void scan_logdir(struct run_set *rs, const char *logdir, const char *logdir_real)
{
	struct nns_err err;

	nns_err_clear(&err);
	if (run_discover(rs, logdir, NULL, &err)) {
		run_set_release(rs);
		memset(rs, 0, sizeof(*rs));
	}
	drop_outside(rs, logdir_real);
}

int scan_stat(const char *path, int64_t *size, int64_t *mtime_ns)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return -1;
	*size = st.st_size;
	*mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return 0;
}

int64_t scan_run_mtime_ms(const struct run *run)
{
	int64_t mtime_ms = 0;

	for (size_t j = 0; j < run->workers.n; j++) {
		const struct run_worker *wk = &run->workers.v[j];

		for (size_t k = 0; k < wk->spans.n; k++) {
			struct stat st;

			if (stat(wk->spans.v[k].path, &st) == 0) {
				int64_t ms = (int64_t)st.st_mtim.tv_sec * 1000 +
					     st.st_mtim.tv_nsec / 1000000;

				if (ms > mtime_ms)
					mtime_ms = ms;
			}
		}
	}
	return mtime_ms;
}
