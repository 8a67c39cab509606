/* ms_read.c - whole-file reads of MindSpore profiler files (ms_read.h), on
 * ms_src_read(), and the readers' string lists. */
#include "importers/ms_read.h"
#include "common/vec.h"

#include <string.h>

int ms_read(const struct ms_src *s, const char *pre, const char *post, char *path, size_t pn,
	    char **buf, size_t *n, struct nns_err *err)
{
	int rc;

	if (ms_src_path(s, pre, post, path, pn))
		return nns_err_set(err, NNS_EFORMAT, "%s: path too long", s->dir);
	rc = ms_src_read(s, pre, post, MS_READ_MAX, buf, n, err);
	if (rc == NNS_ENOTFOUND) {
		nns_err_clear(err);
		return NNS_OK; /* absent: *buf NULL */
	}
	return rc;
}

const char *ms_read_base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

int ms_strs_add_raw(char **v, size_t *len, size_t *cap, const char *s, size_t n, size_t *off)
{
	if (vec_reserve_raw((void **)v, cap, *len + n + 1, 1))
		return NNS_ENOMEM;
	*off = *len;
	memcpy(*v + *len, s, n);
	(*v)[*len + n] = 0;
	*len += n + 1;
	return 0;
}
