/* testutil.c - shared helpers for golden tests (testutil.h). */
#include "testutil.h"
#include "output/jsonw.h"
#include "importers/kineto.h"
#include "importers/nnst.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>
#include <zlib.h>

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int tu_rmtree(const char *dir)
{
	return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

const char *tu_shared_dir(void)
{
	const char *s = getenv("NNS_SHARED");
	return s && *s ? s : "../shared";
}

json_t *tu_load_shared_json(const char *rel)
{
	char path[4096];
	json_error_t e;
	json_t *j;

	snprintf(path, sizeof(path), "%s/%s", tu_shared_dir(), rel);
	j = json_load_file(path, 0, &e);
	if (!j)
		fprintf(stderr, "SKIP: %s not readable (%s); set NNS_SHARED to the shared folder\n",
			path, e.text);
	return j;
}

int tu_model_from_events(json_t *events, struct model *m)
{
	json_t *doc = json_pack("{s:i, s:O}", "schemaVersion", 1, "traceEvents", events);
	char *text;
	struct nns_err err;
	struct kineto_opts o = {.threads = 1};
	int rc;

	if (!doc)
		return -1;
	text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	if (!text)
		return -1;
	if (model_init(m)) {
		free(text);
		return -1;
	}
	rc = kineto_load_buffer(text, strlen(text), "case", m, &o, &err);
	if (rc)
		fprintf(stderr, "import failed: %s\n", err.msg);
	free(text);
	return rc;
}

int tu_kineto_profile(const char *json, struct model *m, struct an_profile *p)
{
	struct kineto_opts o = {.threads = 1};
	struct nns_err err;
	int rc;

	nns_err_clear(&err);
	if ((rc = model_init(m)))
		return rc;
	if ((rc = kineto_load_buffer(json, strlen(json), "test.json", m, &o, &err))) {
		fprintf(stderr, "tu_kineto_profile: load: %s\n", err.msg);
		return rc;
	}
	if (p && (rc = an_profile_compute(p, m, &err))) {
		fprintf(stderr, "tu_kineto_profile: analyse: %s\n", err.msg);
		return rc;
	}
	return 0;
}

const struct an_op_row *tu_find_op(const struct an_profile *p, const struct an_op_row *rows,
				   size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(model_str(p->m, rows[i].name), name) == 0)
			return &rows[i];
	return NULL;
}

const struct an_kernel_row *tu_find_kernel(const struct an_profile *p,
					   const struct an_kernel_row *rows, size_t n,
					   const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(model_str(p->m, rows[i].name), name) == 0)
			return &rows[i];
	return NULL;
}

struct tu_fx *tu_fx_load(const char *json)
{
	struct tu_fx *f = calloc(1, sizeof(*f));

	if (f && tu_kineto_profile(json, &f->m, &f->p) != 0) {
		free(f);
		return NULL;
	}
	return f;
}

void tu_fx_free(struct tu_fx *f)
{
	if (!f)
		return;
	an_profile_release(&f->p);
	model_release(&f->m);
	free(f);
}

json_t *tu_view_json(void (*fn)(struct jsonw *w, const struct an_profile *p),
		     const struct an_profile *p)
{
	struct nns_err err = {0};
	struct jsonw w;
	json_error_t je;
	json_t *j = NULL;
	char *s;
	size_t len;

	if (jsonw_init_mem(&w, 0, 0) != NNS_OK)
		return NULL;
	fn(&w, p);
	if (jsonw_finish(&w, &err) != NNS_OK) {
		fprintf(stderr, "writer: %s\n", err.msg);
		jsonw_release(&w);
		return NULL;
	}
	s = jsonw_take(&w, &len);
	jsonw_release(&w);
	if (s && !(j = json_loads(s, 0, &je)))
		fprintf(stderr, "bad JSON: %s\n", je.text);
	free(s);
	return j;
}

int tu_nnst_load(const void *bytes, size_t n, struct model *m)
{
	char path[] = "/tmp/nnscope-test-XXXXXX.nnst";
	struct nns_err e;
	int fd, rc, wrote;
	FILE *f;

	if (model_init(m))
		return NNS_ENOMEM;
	if ((fd = mkstemps(path, 5)) < 0)
		return NNS_EIO;
	if (!(f = fdopen(fd, "wb"))) {
		close(fd);
		unlink(path);
		return NNS_EIO;
	}
	wrote = fwrite(bytes, 1, n, f) == n;
	if (fclose(f) != 0 || !wrote)
		rc = NNS_EIO;
	else if (nnst_is_trace_file(path) != 1)
		rc = NNS_EFORMAT;
	else {
		nns_err_clear(&e);
		rc = nnst_load_file(path, m, &e);
	}
	unlink(path);
	return rc;
}

const struct model_event *tu_find_event(const struct model *m, const char *name, int nth)
{
	for (size_t i = 0; i < m->events.n; i++)
		if (strcmp(model_str(m, m->events.v[i].name), name) == 0 && nth-- == 0)
			return &m->events.v[i];
	return NULL;
}

unsigned char *tu_gzip(const char *p, size_t n, int level, size_t *out_n)
{
	z_stream z;
	size_t cap = compressBound((uLong)n) + 64;
	unsigned char *o = malloc(cap);
	int ok;

	if (!o)
		return NULL;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(o);
		return NULL;
	}
	z.next_in = (unsigned char *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	z.next_out = o;
	z.avail_out = (uInt)cap;
	ok = deflate(&z, Z_FINISH) == Z_STREAM_END;
	*out_n = cap - z.avail_out;
	deflateEnd(&z);
	if (!ok) {
		free(o);
		return NULL;
	}
	return o;
}
