/* ms_src.c - file names of one MindSpore device's profiler files (ms_src.h). */
#include "importers/ms_src.h"
#include "common/fs.h"
#include "importers/ms_raw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int ms_src_path(const struct ms_src *s, const char *pre, const char *post, char *buf, size_t n)
{
	int k = snprintf(buf, n, "%s/%s%d%s", s->dir, pre, s->dev, post);

	return k < 0 || (size_t)k >= n ? -1 : 0;
}

/* A raw job's intermediate file "<pre><dev><post>" (ms_raw.h), or NULL. */
static const struct ms_raw_file *raw_file(const struct ms_src *s, const char *pre, const char *post)
{
	char name[MS_RAW_NAME_MAX];
	int k = snprintf(name, sizeof(name), "%s%d%s", pre, s->dev, post);

	return k < 0 || (size_t)k >= sizeof(name) ? NULL : ms_raw_get(s->raw, name);
}

int ms_src_has(const struct ms_src *s, const char *pre, const char *post)
{
	char path[4096];
	struct stat st;

	if (s->raw && raw_file(s, pre, post))
		return 1;
	return ms_src_path(s, pre, post, path, sizeof(path)) == 0 &&
	       fs_stat_beneath(s->root, path, &st) == 0 && S_ISREG(st.st_mode);
}

int ms_src_read(const struct ms_src *s, const char *pre, const char *post, size_t max, char **buf,
		size_t *n, struct nns_err *err)
{
	char path[4096];
	struct stat st;
	const struct ms_raw_file *rf;
	FILE *f;
	int bad;

	*buf = NULL;
	*n = 0;
	if (s->raw && (rf = raw_file(s, pre, post))) {
		if (rf->len > max)
			return nns_err_set(err, NNS_EFORMAT, "%s: larger than %zu bytes", rf->name,
					   max);
		if (!(*buf = malloc(rf->len + 1)))
			return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", rf->name);
		memcpy(*buf, rf->text, rf->len + 1);
		*n = rf->len;
		return NNS_OK;
	}
	if (ms_src_path(s, pre, post, path, sizeof(path)))
		return nns_err_set(err, NNS_EINVAL, "%s: path too long", s->dir);
	/* what is checked is the file opened, read through its descriptor */
	f = fs_fopen_beneath(s->root, path);
	if (!f)
		return fs_open_error(err,
				     errno == ENOENT || errno == ENOTDIR ? NNS_ENOTFOUND : NNS_EIO,
				     s->root, path, errno);
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fclose(f); /* a directory of that name holds no data */
		return nns_err_set(err, NNS_ENOTFOUND, "%s: not a regular file", path);
	}
	if ((size_t)st.st_size > max) {
		fclose(f);
		return nns_err_set(err, NNS_EFORMAT, "%s: larger than %zu bytes", path, max);
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf) {
		fclose(f);
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
	}
	*n = fread(*buf, 1, (size_t)st.st_size, f);
	bad = ferror(f);
	fclose(f);
	if (bad) {
		free(*buf);
		*buf = NULL;
		*n = 0;
		return nns_err_set(err, NNS_EIO, "%s: read error", path);
	}
	(*buf)[*n] = '\0';
	return NNS_OK;
}
