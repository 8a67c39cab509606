/*
 * cache.c - the on-disk analysis cache (cache.h): where it lives, its key,
 * reading a view and writing the views of a freshly analysed trace.
 *
 * No cache open follows a symbolic link. The cache directory is reached
 * from a base opened as the user named it (the run directory, beneath the
 * logdir; --cache-dir; the per-user cache) one component at a time with
 * O_NOFOLLOW, each a directory owned by us (created when writing). Files
 * are opened relative to that directory's descriptor with O_NOFOLLOW and
 * read only when they are regular files with one link, owned by us; they
 * are written as temporary files (O_CREAT | O_EXCL | O_NOFOLLOW) renamed
 * into place, the views through out_write_views() given the descriptor's
 * /proc/self/fd/<n> name, which the kernel resolves to that very directory
 * (without /proc nothing is cached: the views are then served from
 * memory).
 */
#include "server/cache.h"
#include "common/snapfile.h"
#include "common/strhash.h"
#include "model/model.h"
#include "trace/trace_index.h"
#include "nnscope.h"
#include "output/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_KEY_FILE "cache-key"
#define CACHE_SNAP_FILE "trace.snap"
#define CACHE_DIR_NAME ".nnscope-cache"
#define CACHE_KEY_MAX 4096
#define MAX_CACHED_DOC ((size_t)512 << 20)

/* ---- the cache directory ------------------------------------------------------ */

/* Opens (creating it when create) the directory name in dfd, without
 * following a link, and checks that it is a directory of ours. The
 * descriptor (O_RDONLY | O_DIRECTORY) or -1. */
static int sub_open(int dfd, const char *name, int create)
{
	struct stat st;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && create &&
	    (mkdirat(dfd, name, 0777) == 0 || errno == EEXIST))
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The descriptor of d's directory (created when create), or -1. */
static int dir_open(const struct cache_dir *d, int create)
{
	char rel[sizeof(d->rel)], *p, *slash;
	int fd;

	if (!d->base[0])
		return -1;
	fd = fs_open_beneath(d->root, d->base, O_RDONLY | O_DIRECTORY, 0);
	snprintf(rel, sizeof(rel), "%s", d->rel);
	for (p = rel; fd >= 0 && *p; p = slash ? slash + 1 : p + strlen(p)) {
		int next;

		slash = strchr(p, '/');
		if (slash)
			*slash = '\0';
		next = sub_open(fd, p, create);
		close(fd);
		fd = next;
	}
	return fd;
}

/* ---- reading ----------------------------------------------------------------- */

/* The whole of name in the directory dfd when it is a regular file of ours
 * with one link and at most max bytes, opened without following a link:
 * malloc'd and NUL-terminated (caller frees), or NULL. */
static char *read_whole(int dfd, const char *name, size_t max, size_t *len)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char *buf = NULL;
	struct stat st;
	size_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
	    st.st_uid == geteuid() && (size_t)st.st_size <= max &&
	    (buf = malloc((size_t)st.st_size + 1)) != NULL) {
		while (got < (size_t)st.st_size) {
			ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		if (got == (size_t)st.st_size) {
			buf[got] = 0;
			*len = got;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	close(fd);
	return buf;
}

/* ---- where ------------------------------------------------------------------- */

/* The per-user cache of run_dir into d: base <override> (--cache-dir) or
 * $XDG_CACHE_HOME/nnscope (or ~/.cache/nnscope), rel "<hash>/<sub>". 0 or
 * -1 (no usable place). */
static int per_user(struct cache_dir *d, const char *run_dir, const char *override, const char *sub)
{
	struct nns_err err;
	char real[PATH_MAX];
	const char *base = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int fd;

	nns_err_clear(&err);
	d->root = NULL;
	if (!realpath(run_dir, real))
		return -1;
	if (override)
		snprintf(d->base, sizeof(d->base), "%s", override);
	else if (base && base[0] == '/')
		snprintf(d->base, sizeof(d->base), "%s/nnscope", base);
	else if (home && home[0] == '/')
		snprintf(d->base, sizeof(d->base), "%s/.cache/nnscope", home);
	else
		return -1;
	if (snprintf(d->rel, sizeof(d->rel), "%016llx/%s", (unsigned long long)strhash(real),
		     sub) >= (int)sizeof(d->rel) ||
	    fs_mkdirs(d->base, &err) != NNS_OK)
		return -1;
	/* its <hash> directory now, as the cache beside a run is made now */
	fd = fs_open_beneath(NULL, d->base, O_RDONLY | O_DIRECTORY, 0);
	if (fd >= 0) {
		char hash[20];
		int h;

		snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)strhash(real));
		h = sub_open(fd, hash, 1);
		close(fd);
		if (h >= 0) {
			close(h);
			return 0;
		}
	}
	return -1;
}

/* The cache beside the run: base run_dir (beneath root), rel
 * ".nnscope-cache/<sub>", when the run directory is writable (by its mode
 * bits too, so that root does not write into read-only data) and its
 * .nnscope-cache is (or can be made) a directory of ours, not a link. */
static int beside(struct cache_dir *d, const struct fs_root *root, const char *run_dir,
		  const char *sub)
{
	struct stat st;
	int fd, c, ok = 0;

	fd = fs_open_beneath(root, run_dir, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && (st.st_mode & 0222) && faccessat(fd, ".", W_OK, 0) == 0 &&
	    (c = sub_open(fd, CACHE_DIR_NAME, 1)) >= 0) {
		ok = faccessat(c, ".", W_OK, 0) == 0;
		close(c);
	}
	close(fd);
	if (!ok || snprintf(d->base, sizeof(d->base), "%s", run_dir) >= (int)sizeof(d->base) ||
	    snprintf(d->rel, sizeof(d->rel), "%s/%s", CACHE_DIR_NAME, sub) >= (int)sizeof(d->rel))
		return -1;
	d->root = root;
	return 0;
}

int cache_check_root(const char *dir, struct nns_err *err)
{
	struct nns_err e2;

	nns_err_clear(&e2);
	if (fs_mkdirs(dir, &e2) != NNS_OK || access(dir, W_OK) != 0)
		return nns_err_set(err, NNS_EIO, "--cache-dir %s: cannot write there", dir);
	return NNS_OK;
}

int cache_dir_of(struct cache_dir *d, const struct fs_root *root, const char *run_dir,
		 const char *override, const char *worker, const char *span)
{
	char sub[OUT_NAME_MAX * 2 + 8];

	memset(d, 0, sizeof(*d));
	out_profile_dirname(sub, sizeof(sub), worker, span);
	if ((!override && beside(d, root, run_dir, sub) == 0) ||
	    per_user(d, run_dir, override, sub) == 0)
		return 0;
	memset(d, 0, sizeof(*d));
	return -1;
}

/* ---- the key ------------------------------------------------------------------ */

static void key_text(char *dst, size_t size, const struct cache_key *k)
{
	snprintf(dst, size, "nnscope-cache 1\nversion %s\nfile %s\nsize %lld\nmtime %lld\n",
		 NNS_VERSION_STRING, k->path, (long long)k->size, (long long)k->mtime_ns);
}

static int valid_in(int dfd, const struct cache_key *k)
{
	char want[OUT_PATH_MAX + 256];
	size_t len = 0;
	char *have = read_whole(dfd, CACHE_KEY_FILE, CACHE_KEY_MAX, &len);
	int ok;

	key_text(want, sizeof(want), k);
	ok = have && strcmp(have, want) == 0;
	free(have);
	return ok;
}

int cache_valid(const struct cache_dir *d, const struct cache_key *k)
{
	int fd = dir_open(d, 0), ok;

	if (fd < 0)
		return 0;
	ok = valid_in(fd, k);
	close(fd);
	return ok;
}

/* ---- views -------------------------------------------------------------------- */

char *cache_read_view(const struct cache_dir *d, const struct cache_key *k, const char *view,
		      size_t *len)
{
	char name[OUT_NAME_MAX + 8], *doc = NULL;
	int fd;

	if (snprintf(name, sizeof(name), "%s.json", view) >= (int)sizeof(name) ||
	    (fd = dir_open(d, 0)) < 0)
		return NULL;
	if (valid_in(fd, k))
		doc = read_whole(fd, name, MAX_CACHED_DOC, len);
	close(fd);
	return doc;
}

void cache_write(const struct cache_dir *d, const struct cache_key *k, const struct out_source *src,
		 const struct an_profile *p)
{
	struct out_opts oo = {0, 0};
	struct out_file of;
	struct nns_err err;
	char dir[64], key[OUT_PATH_MAX + 256];
	int fd = dir_open(d, 1);

	if (fd < 0)
		return;
	/* /proc/self/fd/<fd>: this directory, whatever its path leads to now */
	snprintf(dir, sizeof(dir), "/proc/self/fd/%d", fd);
	nns_err_clear(&err);
	unlinkat(fd, CACHE_KEY_FILE, 0);  /* invalid until every view is written */
	unlinkat(fd, CACHE_SNAP_FILE, 0); /* of another source or build */
	if (out_write_views(dir, src, p, &oo, &err) == NNS_OK &&
	    out_file_open(&of, dir, CACHE_KEY_FILE, &err) == NNS_OK) {
		key_text(key, sizeof(key), k);
		if (fwrite(key, 1, strlen(key), of.f) != strlen(key))
			out_file_abort(&of);
		else
			out_file_commit(&of, &err);
	}
	close(fd);
}

/* ---- the snapshot ---------------------------------------------------------- */

/* The snapshot's key words (the source: path, size, mtime) and signature
 * (the layout's, and this binary's size, mtime and inode: another build
 * may fill the same layout differently). */
static void snap_key(const struct cache_key *k, uint64_t key[2], uint64_t *sig)
{
	struct stat st;

	*sig = trace_index_snap_sig();
	if (stat("/proc/self/exe", &st) == 0) {
		int64_t id[3] = {(int64_t)st.st_size,
				 (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
				 (int64_t)st.st_ino};

		*sig = strhash_add(*sig, id, sizeof(id));
	}
	key[0] = strhash_add(strhash(k->path), &k->size, sizeof(k->size));
	key[1] = (uint64_t)k->mtime_ns;
}

int cache_snap_read(const struct cache_dir *d, const struct cache_key *k, struct model *m,
		    struct trace_index **ix, struct nns_err *err)
{
	struct snapr r;
	struct stat st;
	uint64_t key[2], sig;
	int dfd = dir_open(d, 0), fd = -1, rc;

	*ix = NULL;
	if (dfd >= 0 && valid_in(dfd, k))
		fd = openat(dfd, CACHE_SNAP_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (dfd >= 0)
		close(dfd);
	if (fd < 0)
		return nns_err_set(err, NNS_ENOTFOUND, "no snapshot");
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_uid != geteuid()) {
		close(fd);
		return nns_err_set(err, NNS_EFORMAT, "snapshot: not a regular file of ours");
	}
	snap_key(k, key, &sig);
	rc = snapr_open(&r, fd, sig, key, err);
	close(fd);
	if (rc != NNS_OK)
		return rc;
	if ((rc = model_snap_read(m, &r, err)) != NNS_OK) /* m took the mapping */
		return rc;
	if ((rc = trace_index_snap_read(ix, m, &r, err)) != NNS_OK)
		model_release(m);
	return rc;
}

int cache_snap_write(const struct cache_dir *d, const struct cache_key *k, const struct model *m,
		     const struct trace_index *ix, _Atomic int *cancel, struct nns_err *err)
{
	struct out_file of;
	struct snapw w;
	char dir[64];
	uint64_t key[2], sig;
	int fd = dir_open(d, 0), rc;

	if (fd < 0 || !valid_in(fd, k)) {
		if (fd >= 0)
			close(fd);
		return nns_err_set(err, NNS_ENOTFOUND, "no valid cache to write a snapshot into");
	}
	snprintf(dir, sizeof(dir), "/proc/self/fd/%d", fd);
	if ((rc = out_file_open(&of, dir, CACHE_SNAP_FILE, err)) != NNS_OK) {
		close(fd);
		return rc;
	}
	snap_key(k, key, &sig);
	snapw_begin(&w, fileno(of.f), sig, key, err);
	w.cancel = cancel;
	model_snap_write(m, &w);
	trace_index_snap_write(ix, &w);
	if ((rc = snapw_end(&w)) != NNS_OK)
		out_file_abort(&of);
	else
		rc = out_file_commit(&of, err);
	close(fd);
	return rc;
}
