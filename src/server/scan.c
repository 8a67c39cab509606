/*
 * scan.c - walking the logdir for runs (scan.h): run discovery with every
 * open beneath the logdir's descriptor (run_discover_in), so that a
 * symbolic link that leads out is listed as refused, never a span; and the
 * size and mtime of trace files, stat'ed beneath the logdir too.
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

void scan_logdir(struct run_set *rs, const struct fs_root *root)
{
	struct nns_err err;
	int rc;

	nns_err_clear(&err);
	rc = run_discover_in(rs, root, NULL, &err);
	if (rc && rc != NNS_ENOTFOUND) {
		run_set_release(rs);
		memset(rs, 0, sizeof(*rs));
	}
}

int scan_stat(const struct fs_root *root, const char *path, int64_t *size, int64_t *mtime_ns)
{
	struct stat st;

	if (fs_stat_beneath(root, path, &st) != 0)
		return -1;
	*size = st.st_size;
	*mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return 0;
}

int64_t scan_run_mtime_ms(const struct fs_root *root, const struct run *run)
{
	int64_t mtime_ms = 0;

	for (size_t j = 0; j < run->workers.n; j++) {
		const struct run_worker *wk = &run->workers.v[j];

		for (size_t k = 0; k < wk->spans.n; k++) {
			struct stat st;

			if (fs_stat_beneath(root, wk->spans.v[k].path, &st) == 0) {
				int64_t ms = (int64_t)st.st_mtim.tv_sec * 1000 +
					     st.st_mtim.tv_nsec / 1000000;

				if (ms > mtime_ms)
					mtime_ms = ms;
			}
		}
	}
	return mtime_ms;
}
