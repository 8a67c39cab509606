/*
 * cache.c - the on-disk analysis cache (cache.h): where it lives, its key,
 * reading a view and writing the views of a freshly analysed trace.
 *
 * Every cache file is opened through open_read() and written through
 * write_atomic() (a temporary file renamed into place); the views
 * themselves go through out_write_profile(), which writes each file the
 * same way.
 */
#include "server/cache.h"
#include "common/fs.h"
#include "common/strhash.h"
#include "nnscope.h"
#include "output/outfile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_KEY_FILE "cache-key"
#define CACHE_DIR_NAME ".nnscope-cache"
#define CACHE_KEY_MAX 4096
#define MAX_CACHED_DOC ((size_t)512 << 20)

/* ---- the only ways a cache file is opened ---------------------------------- */

/* Opens dir/name for reading; NULL when absent or unreadable. */
static FILE *open_read(const char *dir, const char *name)
{
	char path[OUT_PATH_MAX + 64];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return NULL;
	return fopen(path, "rb");
}

/* Writes len bytes of data to dir/name: a temporary file renamed into
 * place. NNS_OK or an NNS_E* status. */
static int write_atomic(const char *dir, const char *name, const char *data, size_t len)
{
	struct out_file of;
	struct nns_err err;
	int rc;

	nns_err_clear(&err);
	if ((rc = out_file_open(&of, dir, name, &err)) != NNS_OK)
		return rc;
	if (fwrite(data, 1, len, of.f) != len) {
		out_file_abort(&of);
		return NNS_EIO;
	}
	return out_file_commit(&of, &err);
}

/* ---- reading ----------------------------------------------------------------- */

/* The whole of dir/name when it is a regular file of at most max bytes:
 * malloc'd and NUL-terminated (caller frees), or NULL. */
static char *read_whole(const char *dir, const char *name, size_t max, size_t *len)
{
	FILE *f = open_read(dir, name);
	char *buf = NULL;
	struct stat st;

	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= max &&
	    (buf = malloc((size_t)st.st_size + 1)) != NULL) {
		if (fread(buf, 1, (size_t)st.st_size, f) == (size_t)st.st_size) {
			buf[st.st_size] = 0;
			*len = (size_t)st.st_size;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

/* ---- where ------------------------------------------------------------------- */

/* The cache root of a run directory: <override>/<hash> with --cache-dir;
 * else <run_dir>/.nnscope-cache when the directory is writable (by its
 * mode bits too, so that root does not write into read-only data), else
 * $XDG_CACHE_HOME/nnscope/<hash> (or ~/.cache/nnscope/<hash>). */
static int cache_root(char *dst, size_t size, const char *run_dir, const char *override)
{
	struct nns_err err;
	struct stat st;
	char real[PATH_MAX];
	const char *base = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char tmp[OUT_PATH_MAX];

	nns_err_clear(&err);
	if (!override && stat(run_dir, &st) == 0 && (st.st_mode & 0222) &&
	    access(run_dir, W_OK) == 0 &&
	    snprintf(dst, size, "%s/%s", run_dir, CACHE_DIR_NAME) < (int)size &&
	    fs_mkdirs(dst, &err) == NNS_OK && access(dst, W_OK) == 0)
		return 0;
	if (!realpath(run_dir, real))
		return -1;
	if (override)
		snprintf(tmp, sizeof(tmp), "%s", override);
	else if (base && base[0] == '/')
		snprintf(tmp, sizeof(tmp), "%s/nnscope", base);
	else if (home && home[0] == '/')
		snprintf(tmp, sizeof(tmp), "%s/.cache/nnscope", home);
	else
		return -1;
	if (snprintf(dst, size, "%s/%016llx", tmp, (unsigned long long)strhash(real)) >= (int)size)
		return -1;
	return fs_mkdirs(dst, &err) == NNS_OK && access(dst, W_OK) == 0 ? 0 : -1;
}

int cache_check_root(const char *dir, struct nns_err *err)
{
	struct nns_err e2;

	nns_err_clear(&e2);
	if (fs_mkdirs(dir, &e2) != NNS_OK || access(dir, W_OK) != 0)
		return nns_err_set(err, NNS_EIO, "--cache-dir %s: cannot write there", dir);
	return NNS_OK;
}

int cache_dir_of(char *dst, size_t size, const char *run_dir, const char *override,
		 const char *worker, const char *span)
{
	char sub[OUT_NAME_MAX * 2 + 8], root[OUT_PATH_MAX];

	dst[0] = 0;
	if (cache_root(root, sizeof(root), run_dir, override) != 0)
		return -1;
	out_profile_dirname(sub, sizeof(sub), worker, span);
	if (snprintf(dst, size, "%s/%s", root, sub) >= (int)size) {
		dst[0] = 0;
		return -1;
	}
	return 0;
}

/* ---- the key ------------------------------------------------------------------ */

static void key_text(char *dst, size_t size, const struct cache_key *k)
{
	snprintf(dst, size, "nnscope-cache 1\nversion %s\nfile %s\nsize %lld\nmtime %lld\n",
		 NNS_VERSION_STRING, k->path, (long long)k->size, (long long)k->mtime_ns);
}

int cache_valid(const char *dir, const struct cache_key *k)
{
	char want[OUT_PATH_MAX + 256];
	size_t len = 0;
	char *have;
	int ok;

	if (!dir[0])
		return 0;
	have = read_whole(dir, CACHE_KEY_FILE, CACHE_KEY_MAX, &len);
	key_text(want, sizeof(want), k);
	ok = have && strcmp(have, want) == 0;
	free(have);
	return ok;
}

/* ---- views -------------------------------------------------------------------- */

char *cache_read_view(const char *dir, const struct cache_key *k, const char *view, size_t *len)
{
	char name[OUT_NAME_MAX + 8];

	if (!cache_valid(dir, k) ||
	    snprintf(name, sizeof(name), "%s.json", view) >= (int)sizeof(name))
		return NULL;
	return read_whole(dir, name, MAX_CACHED_DOC, len);
}

void cache_write(const char *dir, const struct cache_key *k, const struct out_source *src,
		 const struct an_profile *p)
{
	struct out_opts oo = {0, 0};
	struct nns_err err;
	char root[OUT_PATH_MAX], key[OUT_PATH_MAX + 256];
	char *slash;

	if (!dir[0])
		return;
	snprintf(root, sizeof(root), "%s", dir);
	slash = strrchr(root, '/');
	if (!slash)
		return;
	*slash = 0;
	nns_err_clear(&err);
	if (out_write_profile(root, src, p, &oo, &err))
		return;
	key_text(key, sizeof(key), k);
	write_atomic(dir, CACHE_KEY_FILE, key, strlen(key));
}
