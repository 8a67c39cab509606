/* outfile.c - output directories, safe names, atomic files (see outfile.h). */
#include "output/outfile.h"
#include "output/jsonw.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int safe_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-' || c == '+' || c == '=' || c == '@';
}

void out_sanitize(char *dst, size_t size, const char *name)
{
	size_t n = 0, max = size - 1;

	if (max > OUT_NAME_MAX)
		max = OUT_NAME_MAX;
	if (!name)
		name = "";
	/* "." and "..", and any name starting with '.', which would be a
	 * hidden directory ("....1074" -> "_....1074") */
	if (name[0] == '.' || name[0] == '\0')
		dst[n++] = '_';
	for (const char *s = name; *s && n < max; s++)
		dst[n++] = safe_char((unsigned char)*s) ? *s : '_';
	dst[n] = '\0';
}

void out_sanitize_rel(char *dst, size_t size, const char *rel)
{
	size_t n = 0;
	const char *s = rel ? rel : "";

	dst[0] = '\0';
	while (*s) {
		char comp[OUT_NAME_MAX + 8], clean[OUT_NAME_MAX + 8];
		size_t k = 0, len;

		while (*s == '/')
			s++;
		while (*s && *s != '/') {
			if (k < sizeof(comp) - 1)
				comp[k++] = *s;
			s++;
		}
		comp[k] = '\0';
		if (k == 0 || strcmp(comp, ".") == 0)
			continue;
		out_sanitize(clean, sizeof(clean), comp);
		len = strlen(clean);
		if (n + len + 2 > size)
			break;
		if (n)
			dst[n++] = '/';
		memcpy(dst + n, clean, len + 1);
		n += len;
	}
	if (n == 0 && size >= 2) {
		dst[0] = '.';
		dst[1] = '\0';
	}
}

int out_join(char *dst, size_t size, const char *a, const char *b, struct nns_err *err)
{
	int n;

	if (!a || !*a || strcmp(a, ".") == 0)
		n = snprintf(dst, size, "%s", b);
	else if (!b || !*b || strcmp(b, ".") == 0)
		n = snprintf(dst, size, "%s", a);
	else
		n = snprintf(dst, size, "%s%s%s", a, a[strlen(a) - 1] == '/' ? "" : "/", b);
	if (n < 0 || (size_t)n >= size)
		return nns_err_set(err, NNS_EINVAL, "%s/%s: path too long", a ? a : "", b ? b : "");
	return NNS_OK;
}

int out_file_open(struct out_file *o, const char *dir, const char *name, struct nns_err *err)
{
	struct timespec ts;
	int fd = -1;

	memset(o, 0, sizeof(*o));
	if (out_join(o->path, sizeof(o->path), dir, name, err))
		return NNS_EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (unsigned i = 0; i < 100 && fd < 0; i++) {
		unsigned long salt = (unsigned long)ts.tv_nsec + i * 7919u + (uintptr_t)o;
		int n = snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.%ld.%lx", o->path, (long)getpid(),
				 salt & 0xffffffUL);

		if (n < 0 || (size_t)n >= sizeof(o->tmp))
			return nns_err_set(err, NNS_EINVAL, "%s: path too long", o->path);
		/* never through a link: O_EXCL | O_NOFOLLOW create a new file
		 * or fail, and the rename replaces a link at path, never
		 * follows it */
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = errno;

		o->tmp[0] = '\0';
		return nns_err_set(err, NNS_EIO, "%s: cannot create: %s", o->path, strerror(e));
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		unlink(o->tmp);
		o->tmp[0] = '\0';
		return nns_err_set(err, NNS_ENOMEM, "%s: cannot open a stream", o->path);
	}
	return NNS_OK;
}

int out_file_commit(struct out_file *o, struct nns_err *err)
{
	int bad;

	if (!o->f)
		return nns_err_set(err, NNS_EINVAL, "%s: file not open", o->path);
	bad = ferror(o->f);
	if (fclose(o->f) != 0)
		bad = 1;
	o->f = NULL;
	if (bad) {
		int e = errno;

		unlink(o->tmp);
		o->tmp[0] = '\0';
		return nns_err_set(err, NNS_EIO, "%s: write failed: %s", o->path, strerror(e));
	}
	if (rename(o->tmp, o->path) != 0) {
		int e = errno;

		unlink(o->tmp);
		o->tmp[0] = '\0';
		return nns_err_set(err, NNS_EIO, "%s: cannot rename into place: %s", o->path,
				   strerror(e));
	}
	o->tmp[0] = '\0';
	return NNS_OK;
}

void out_file_abort(struct out_file *o)
{
	if (o->f) {
		fclose(o->f);
		o->f = NULL;
	}
	if (o->tmp[0]) {
		unlink(o->tmp);
		o->tmp[0] = '\0';
	}
}

int out_json_file(const char *dir, const char *name, int pretty,
		  void (*fn)(struct jsonw *w, const void *arg), const void *arg,
		  struct nns_err *err)
{
	struct out_file of;
	struct jsonw w;
	int rc = out_file_open(&of, dir, name, err);

	if (rc)
		return rc;
	if (jsonw_init_file(&w, of.f, pretty)) {
		out_file_abort(&of);
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", of.path);
	}
	fn(&w, arg);
	rc = jsonw_finish(&w, NULL);
	jsonw_release(&w);
	if (rc) {
		out_file_abort(&of);
		return nns_err_set(err, rc, "%s: cannot write: %s", of.path, nns_strerror(rc));
	}
	return out_file_commit(&of, err);
}
