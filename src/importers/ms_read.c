/* ms_read.c - whole-file reads of MindSpore profiler files (ms_read.h). */
#include "importers/ms_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int ms_read(const struct ms_src *s, const char *pre, const char *post, char *path, size_t pn,
	    char **buf, size_t *n, struct nns_err *err)
{
	struct stat st;
	FILE *f;
	char *b;
	size_t got;

	*buf = NULL;
	*n = 0;
	if (ms_src_path(s, pre, post, path, pn))
		return nns_err_set(err, NNS_EFORMAT, "%s: path too long", s->dir);
	if (stat(path, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return NNS_OK;
		return nns_err_set(err, NNS_EIO, "%s: %s", path, strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return NNS_OK;
	if ((size_t)st.st_size > MS_READ_MAX)
		return nns_err_set(err, NNS_EFORMAT, "%s: larger than %zu bytes", path,
				   MS_READ_MAX);
	f = fopen(path, "rb");
	if (!f)
		return nns_err_set(err, NNS_EIO, "%s: %s", path, strerror(errno));
	b = malloc((size_t)st.st_size + 1);
	if (!b) {
		fclose(f);
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
	}
	got = fread(b, 1, (size_t)st.st_size, f);
	if (ferror(f)) {
		fclose(f);
		free(b);
		return nns_err_set(err, NNS_EIO, "%s: read error", path);
	}
	fclose(f);
	b[got] = 0;
	*buf = b;
	*n = got;
	return NNS_OK;
}

const char *ms_read_base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}
