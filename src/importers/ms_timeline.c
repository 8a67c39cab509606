/*
 * ms_timeline.c - the ranks of a MindSpore job's msprof timeline and the
 * files of each (ms_timeline.h); the planes are ms_timeline_planes.c.
 */
#include "importers/ms_timeline.h"
#include "common/fs.h"
#include "importers/ms_timeline_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSTL_FILE_MAX ((size_t)1 << 30)
#define MSTL_FILES_MAX 100000

enum { K_STEP, K_MSPROF, K_TASK, K_HCCL, K_N };
static const char *const KIND[K_N] = {"step_trace_", "msprof_", "task_time_", "hccl_"};

struct tl_file {
	int kind, model;
	char key[96]; /* kind and the three numbers: the newest of a key wins */
	char name[256];
};

/* "<kind><dev>_<model>_<iter>[_...].json": 1 with f filled. */
static int match_tl(const char *name, struct tl_file *f)
{
	size_t n = strlen(name);

	if (n < 6 || n >= sizeof(f->name) || strcmp(name + n - 5, ".json") != 0)
		return 0;
	for (int k = 0; k < K_N; k++) {
		size_t a = strlen(KIND[k]);
		const char *p = name + a;
		long v[3];
		char *end;

		if (strncmp(name, KIND[k], a) != 0)
			continue;
		for (int i = 0; i < 3; i++) {
			if (*p < '0' || *p > '9')
				return 0;
			v[i] = strtol(p, &end, 10);
			p = end;
			if (i < 2 && *p++ != '_')
				return 0;
		}
		if (*p != '.' && *p != '_')
			return 0;
		f->kind = k;
		f->model = (int)v[1];
		snprintf(f->key, sizeof(f->key), "%s%ld_%ld_%ld", KIND[k], v[0], v[1], v[2]);
		snprintf(f->name, sizeof(f->name), "%s", name);
		return 1;
	}
	return 0;
}

static int tl_cmp(const void *x, const void *y)
{
	const struct tl_file *a = x, *b = y;

	return a->kind != b->kind ? a->kind - b->kind : strcmp(a->name, b->name);
}

/* The timeline files of devdir, sorted by kind then name, the newest of
 * each key only (MindInsight's get_newest_file). *out malloc'ed. */
static int list_files(const struct fs_root *root, const char *devdir, struct tl_file **out,
		      size_t *n)
{
	char path[FS_PATH_MAX];
	struct tl_file *v = NULL, f;
	size_t cnt = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	*n = 0;
	if (snprintf(path, sizeof(path), "%s/timeline", devdir) >= (int)sizeof(path) ||
	    !(d = fs_opendir_beneath(root, path)))
		return NNS_OK;
	while ((de = readdir(d)) != NULL && cnt < MSTL_FILES_MAX) {
		size_t i;

		if (!match_tl(de->d_name, &f))
			continue;
		for (i = 0; i < cnt && strcmp(v[i].key, f.key) != 0; i++)
			;
		if (i < cnt) {
			if (strcmp(f.name, v[i].name) > 0)
				v[i] = f;
			continue;
		}
		if (cnt == cap) {
			struct tl_file *nv = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*v));

			if (!nv) {
				free(v);
				closedir(d);
				return NNS_ENOMEM;
			}
			v = nv;
		}
		v[cnt++] = f;
	}
	closedir(d);
	if (cnt > 1)
		qsort(v, cnt, sizeof(*v), tl_cmp);
	*out = v;
	*n = cnt;
	return NNS_OK;
}

static int read_whole(const struct fs_root *root, const char *path, char **buf, size_t *n,
		      struct nns_err *err)
{
	FILE *f = fs_fopen_beneath(root, path);
	struct buf b;
	char chunk[65536];
	size_t k;

	if (!f)
		return fs_open_error(err, NNS_EIO, root, path, errno);
	buf_init(&b, MSTL_FILE_MAX);
	while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (buf_append(&b, chunk, k)) {
			fclose(f);
			buf_free(&b);
			return nns_err_set(err, NNS_EFORMAT,
					   "%s: larger than 1 GiB or out of memory", path);
		}
	if (ferror(f)) {
		fclose(f);
		buf_free(&b);
		return nns_err_set(err, NNS_EIO, "%s: read error", path);
	}
	fclose(f);
	*n = b.len;
	*buf = buf_take(&b);
	return *buf ? NNS_OK : nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
}

/* Parses a file; with array set it must be a JSON array (trace events). */
static int parse_json(const struct fs_root *root, const char *path, int array, struct msj *j,
		      struct nns_err *err)
{
	char *buf;
	size_t n;
	int rc;

	memset(j, 0, sizeof(*j));
	if ((rc = read_whole(root, path, &buf, &n, err)))
		return rc;
	rc = msj_parse(j, buf, n, path, err);
	free(buf);
	if (!rc && msj_root(j)->type != (array ? MSJ_ARR : MSJ_OBJ)) {
		msj_release(j);
		rc = nns_err_set(err, NNS_EFORMAT, "%s: not a JSON %s", path,
				 array ? "array of trace events" : "object");
	}
	return rc;
}

/* The first file of dir whose name starts with pre, not "*.done". */
static int find_named(const struct fs_root *root, const char *dir, const char *pre, char *out,
		      size_t n)
{
	struct dirent *de;
	DIR *d = fs_opendir_beneath(root, dir);
	char best[256] = "";

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);

		if (strncmp(de->d_name, pre, strlen(pre)) != 0 ||
		    (l >= 5 && strcmp(de->d_name + l - 5, ".done") == 0) || l >= sizeof(best))
			continue;
		if (!best[0] || strcmp(de->d_name, best) < 0)
			snprintf(best, sizeof(best), "%s", de->d_name);
	}
	closedir(d);
	return best[0] && snprintf(out, n, "%s/%s", dir, best) < (int)n;
}

/* A member read as a number or a numeric string; def when neither. */
static double num_member(const struct msj *j, const char *key, double def)
{
	const struct msj_node *x = msj_get(j, msj_root(j), key);
	const char *s;
	char *end;
	double v;

	if (x && x->type == MSJ_NUM)
		return x->num;
	if (!x || !(s = msj_str(j, x)))
		return def;
	v = strtod(s, &end);
	return end != s ? v : def;
}

static int64_t int_member(const struct msj *j, const char *key, int64_t def)
{
	const struct msj_node *x = msj_get(j, msj_root(j), key);
	const char *s;
	char *end;
	long long v;

	if (x && x->type == MSJ_NUM)
		return (int64_t)x->num;
	if (!x || !(s = msj_str(j, x)))
		return def;
	v = strtoll(s, &end, 10);
	return end != s ? (int64_t)v : def;
}

void mstl_rank_info(const struct fs_root *root, const char *devdir, int *rank, int64_t *offset_ns)
{
	char path[FS_PATH_MAX], parent[FS_PATH_MAX];
	const char *slash = strrchr(devdir, '/');
	struct nns_err e;
	struct msj j;

	*rank = 0;
	*offset_ns = 0;
	snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - devdir) : 1,
		 slash ? devdir : ".");
	if ((find_named(root, devdir, "info.json.", path, sizeof(path)) ||
	     find_named(root, parent, "info.json.", path, sizeof(path))) &&
	    parse_json(root, path, 0, &j, &e) == NNS_OK) {
		*rank = (int)int_member(&j, "rank_id", 0);
		if (*rank < 0)
			*rank = 0; /* MindInsight: -1 (no rank) is rank 0 */
		msj_release(&j);
	}
	if ((find_named(root, devdir, "start_info", path, sizeof(path)) ||
	     find_named(root, parent, "start_info", path, sizeof(path))) &&
	    parse_json(root, path, 0, &j, &e) == NNS_OK) {
		/* collectionTimeBegin (µs) - clockMonotonicRaw (ns) / 1000 */
		int64_t us = int_member(&j, "collectionTimeBegin", 0);
		int64_t ns = int_member(&j, "clockMonotonicRaw", 0);

		if (us == 0 && num_member(&j, "collectionTimeBegin", 0) != 0)
			us = (int64_t)num_member(&j, "collectionTimeBegin", 0);
		if (us || ns)
			*offset_ns = us * 1000 - ns;
		msj_release(&j);
	}
}

int mstl_is_rank_dir(const struct fs_root *root, const char *path)
{
	const char *b = strrchr(path, '/');
	struct tl_file *v;
	size_t n;
	int yes;

	b = b ? b + 1 : path;
	if (strncmp(b, "device_", 7) != 0 || list_files(root, path, &v, &n))
		return 0;
	yes = n > 0;
	free(v);
	return yes;
}

static int rank_cmp(const void *x, const void *y)
{
	const struct mstl_rank *a = x, *b = y;

	return a->rank - b->rank;
}

static int str_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The first device_* directory of prof with timeline files, into out. */
static int prof_device(const struct fs_root *root, const char *prof, char *out, size_t n)
{
	DIR *d = fs_opendir_beneath(root, prof);
	struct dirent *de;
	char best[FS_PATH_MAX] = "", path[FS_PATH_MAX];

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "device_", 7) != 0 ||
		    snprintf(path, sizeof(path), "%s/%s", prof, de->d_name) >= (int)sizeof(path) ||
		    !mstl_is_rank_dir(root, path))
			continue;
		if (!best[0] || strcmp(path, best) < 0)
			snprintf(best, sizeof(best), "%s", path);
	}
	closedir(d);
	return best[0] && snprintf(out, n, "%s", best) < (int)n;
}

int mstl_find(const struct fs_root *root, const char *dir, char *const *sub, size_t nsub,
	      struct mstl_ranks *out, struct nns_err *err)
{
	const char *b = strrchr(dir, '/');
	char **cand = NULL;
	size_t nc = 0;
	int self;

	memset(out, 0, sizeof(*out));
	b = b ? b + 1 : dir;
	self = strncmp(b, "PROF_", 5) == 0;
	if (!(cand = calloc(self ? 1 : nsub + 1, sizeof(*cand))))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	if (self)
		cand[nc++] = (char *)dir;
	for (size_t i = 0; !self && i < nsub; i++)
		if (strncmp(sub[i], "PROF_", 5) == 0)
			cand[nc++] = sub[i];
	if (nc > 1)
		qsort(cand, nc, sizeof(*cand), str_cmp);
	/* in name order: a later PROF_* of the same rank replaces (newest) */
	for (size_t i = 0; i < nc; i++) {
		char prof[FS_PATH_MAX], dev[FS_PATH_MAX];
		struct mstl_rank r;
		size_t k;

		if (self)
			snprintf(prof, sizeof(prof), "%s", dir);
		else if (snprintf(prof, sizeof(prof), "%s/%s", dir, cand[i]) >= (int)sizeof(prof))
			continue;
		if (!prof_device(root, prof, dev, sizeof(dev)))
			continue;
		mstl_rank_info(root, dev, &r.rank, &r.offset_ns);
		if (!(r.dir = strdup(dev)))
			goto nomem;
		for (k = 0; k < out->v.n && out->v.v[k].rank != r.rank; k++)
			;
		if (k < out->v.n) {
			free(out->v.v[k].dir);
			out->v.v[k] = r;
		} else if (vec_push(&out->v, r)) {
			free(r.dir);
			goto nomem;
		}
	}
	free(cand);
	if (out->v.n > 1)
		qsort(out->v.v, out->v.n, sizeof(*out->v.v), rank_cmp);
	return NNS_OK;
nomem:
	free(cand);
	mstl_ranks_release(out);
	return nns_err_set(err, NNS_ENOMEM, "out of memory");
}

void mstl_ranks_release(struct mstl_ranks *r)
{
	for (size_t i = 0; i < r->v.n; i++)
		free(r->v.v[i].dir);
	vec_free(&r->v);
}

int mstl_models(const struct fs_root *root, const char *devdir, int *models, int max)
{
	struct tl_file *v;
	size_t n;
	int k = 0;

	if (list_files(root, devdir, &v, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		int j;

		if (v[i].kind != K_STEP)
			continue;
		for (j = 0; j < k && models[j] != v[i].model; j++)
			;
		if (j == k && k < max)
			models[k++] = v[i].model;
	}
	free(v);
	for (int i = 1; i < k; i++) /* insertion sort: a handful */
		for (int j = i; j > 0 && models[j - 1] > models[j]; j--) {
			int t = models[j];

			models[j] = models[j - 1];
			models[j - 1] = t;
		}
	return k;
}

static int model_kept(const struct mstl_opts *o, int model)
{
	if (!o->nmodels)
		return 1;
	for (int i = 0; i < o->nmodels; i++)
		if (o->models[i] == model)
			return 1;
	return 0;
}

/* Parses the files of one kind (the selected sub-graphs) into *js. */
static int parse_kind(const struct fs_root *root, const char *devdir, const struct tl_file *v,
		      size_t n, int kind, const struct mstl_opts *o, struct msj **js, size_t *nj,
		      struct nns_err *err)
{
	char path[FS_PATH_MAX];
	int rc = NNS_OK;

	*nj = 0;
	if (!(*js = calloc(n + 1, sizeof(**js))))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	for (size_t i = 0; i < n && rc == NNS_OK; i++) {
		if (v[i].kind != kind || !model_kept(o, v[i].model))
			continue;
		snprintf(path, sizeof(path), "%s/timeline/%s", devdir, v[i].name);
		if ((rc = parse_json(root, path, 1, &(*js)[*nj], err)) == NNS_OK)
			(*nj)++;
	}
	return rc;
}

static void release_all(struct msj *js, size_t n)
{
	for (size_t i = 0; i < n; i++)
		msj_release(&js[i]);
	free(js);
}

int mstl_write_rank(struct buf *b, const struct fs_root *root, const struct mstl_rank *r,
		    const struct mstl_opts *o, int *first, struct nns_err *err)
{
	struct mstl_w w = {b, first, r->rank, r->offset_ns, 0};
	struct tl_file *v;
	struct msj *js = NULL;
	size_t n, nj = 0;
	int rc;

	if (list_files(root, r->dir, &v, &n))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	/* Step Trace: the first step_trace file (MindInsight reads one; the
	 * files of a rank are copies), whatever its sub-graph */
	for (size_t i = 0; i < n; i++) {
		struct msj j;
		char path[FS_PATH_MAX];

		if (v[i].kind != K_STEP)
			continue;
		snprintf(path, sizeof(path), "%s/timeline/%s", r->dir, v[i].name);
		if ((rc = parse_json(root, path, 1, &j, err)))
			goto out;
		mstl_step_trace(&w, &j, o);
		msj_release(&j);
		break;
	}
	if ((rc = parse_kind(root, r->dir, v, n, K_MSPROF, o, &js, &nj, err)))
		goto out;
	mstl_overlap(&w, js, nj);
	release_all(js, nj);
	js = NULL;
	for (int k = K_TASK; o->detail && k <= K_HCCL; k++) {
		if ((rc = parse_kind(root, r->dir, v, n, k, o, &js, &nj, err)))
			goto out;
		mstl_copy_plane(&w, js, nj, k == K_TASK ? "Ascend Hardware" : "HCCL");
		release_all(js, nj);
		js = NULL;
	}
	rc = w.oom ? nns_err_set(err, NNS_ENOMEM, "%s: timeline too large or out of memory", r->dir)
		   : NNS_OK;
out:
	if (js)
		release_all(js, nj);
	free(v);
	return rc;
}

static int rank_kept(const struct mstl_opts *o, int rank)
{
	if (!o->nranks)
		return 1;
	for (int i = 0; i < o->nranks; i++)
		if (o->ranks[i] == rank)
			return 1;
	return 0;
}

int mstl_write(struct buf *b, const struct fs_root *root, const struct mstl_ranks *rs,
	       const struct mstl_opts *o, struct nns_err *err)
{
	int first = 1, rc;

	if (buf_putc(b, '['))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	for (size_t i = 0; i < rs->v.n; i++)
		if (rank_kept(o, rs->v.v[i].rank) &&
		    (rc = mstl_write_rank(b, root, &rs->v.v[i], o, &first, err)))
			return rc;
	if (buf_puts(b, "]\n"))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	return NNS_OK;
}

/* 1 when name is a bare CANN task type ("NOTIFY_WAIT", "EVENT_RECORD",
 * "MEMCPY_ASYNC"): upper case, digits and '_' only. */
static int task_type_name(const char *name)
{
	if (!name || !*name)
		return 0;
	for (; *name; name++)
		if (!((*name >= 'A' && *name <= 'Z') || (*name >= '0' && *name <= '9') ||
		      *name == '_'))
			return 0;
	return 1;
}

static int starts(const char *s, const char *p)
{
	return s && strncmp(s, p, strlen(p)) == 0;
}

/* The device work of a loaded rank as kernels of device rank: the Ascend
 * Hardware plane's ops (AI Core, AI CPU: named by the op; the bare task
 * types NOTIFY_WAIT, EVENT_RECORD, MEMCPY_ASYNC ... are the steps of HCCL's
 * collectives and the runtime's syncs and stay ranges) on stream = their
 * "Stream <s>" thread, and the HCCL plane's "Communication Kernel" events
 * (the collectives, "Default/AllReduce-op534_0": communication by
 * model_class_of). The planes' other rows stay ranges. */
static int classify(struct model *m, int rank)
{
	for (size_t i = 0; i < m->events.n; i++) {
		struct model_event *e = &m->events.v[i];
		const struct model_thread *t = &m->threads.v[e->thread];
		const char *pid = model_str(m, t->pid),
			   *tn = t->name ? model_str(m, t->name) : NULL;
		const char *pn, *name = model_str(m, e->name);
		struct model_dev_args a;
		char key[240];
		int64_t idx;
		int hw;

		if (e->kind != MK_OTHER || !pid)
			continue;
		snprintf(key, sizeof(key), "process_name:%s", pid);
		pn = model_meta_get(m, key);
		hw = starts(pn, "Ascend Hardware");
		if (!(hw && !task_type_name(name)) &&
		    !(starts(pn, "HCCL") && tn && strcmp(tn, "Communication Kernel") == 0))
			continue;
		model_dev_args_init(&a);
		a.stream = strtoll(model_str(m, t->tid), NULL, 10);
		if ((idx = model_add_dev_args(m, &a)) < 0)
			return NNS_ENOMEM;
		e->kind = MK_KERNEL;
		e->extra = (uint32_t)idx;
		e->device = (int16_t)rank;
	}
	if (strstr(m->diag.note, "has a \"cat\""))
		m->diag.note[0] = '\0'; /* "no event has a cat" no longer holds */
	return NNS_OK;
}

int mstl_opts_parse(const char *s, struct mstl_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->detail = 1;
	while (s && *s) {
		size_t n = strcspn(s, "/");

		if (n == 7 && !strncmp(s, "summary", n))
			o->detail = 0;
		else if (n == 6 && !strncmp(s, "detail", n))
			o->detail = 1;
		else if (n == 5 && !strncmp(s, "apart", n))
			o->apart = 1;
		else if (n == 6 && !strncmp(s, "merged", n))
			o->apart = 0;
		else if (!(n == 3 && !strncmp(s, "all", n))) {
			const char *p = s;

			while (p < s + n) {
				char *end;
				long v = strtol(p, &end, 10);

				if (end == p || v < 0 || v > 1000000 ||
				    o->nmodels >= MSTL_MODELS_MAX || (end < s + n && *end != ','))
					return -1;
				o->models[o->nmodels++] = (int)v;
				p = end < s + n ? end + 1 : end;
			}
		}
		s += n;
		if (*s == '/')
			s++;
	}
	return 0;
}

void mstl_opts_format(const struct mstl_opts *o, char *out, size_t n)
{
	int models[MSTL_MODELS_MAX], k = o->nmodels, len;

	memcpy(models, o->models, sizeof(models));
	for (int i = 1; i < k; i++) /* sorted, each once */
		for (int j = i; j > 0 && models[j - 1] > models[j]; j--) {
			int t = models[j];

			models[j] = models[j - 1];
			models[j - 1] = t;
		}
	len = snprintf(out, n, "%s/%s/", o->detail ? "detail" : "summary",
		       o->apart ? "apart" : "merged");
	if (!k && len >= 0 && (size_t)len < n)
		snprintf(out + len, n - (size_t)len, "all");
	for (int i = 0; i < k && len >= 0 && (size_t)len < n; i++)
		if (!i || models[i] != models[i - 1])
			len +=
			    snprintf(out + len, n - (size_t)len, "%s%d", i ? "," : "", models[i]);
}

int mstl_load_rank(struct model *m, const char *devdir, const struct kineto_opts *ko,
		   struct nns_err *err)
{
	return mstl_load_rank_opts(m, devdir, NULL, ko, err);
}

int mstl_load_rank_opts(struct model *m, const char *devdir, const char *view,
			const struct kineto_opts *ko, struct nns_err *err)
{
	const struct fs_root *root = ko ? ko->root : NULL;
	struct mstl_opts o;
	struct mstl_rank r;
	struct mstl_ranks rs;
	struct buf b;
	char num[16], canon[600], list[600];
	int models[MSTL_MODELS_MAX], nm, len = 0, rc;

	if (mstl_opts_parse(view, &o))
		return nns_err_set(err, NNS_EINVAL, "%s: bad timeline view '%.100s'", devdir, view);
	mstl_opts_format(&o, canon, sizeof(canon));
	r.dir = (char *)devdir;
	mstl_rank_info(root, devdir, &r.rank, &r.offset_ns);
	rs.v.v = &r;
	rs.v.n = 1;
	buf_init(&b, 0);
	if (model_init(m)) {
		buf_free(&b);
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", devdir);
	}
	rc = mstl_write(&b, root, &rs, &o, err);
	if (!rc)
		rc = kineto_load_buffer(b.p, b.len, devdir, m, ko, err);
	buf_free(&b);
	if (rc == NNS_OK || rc == NNS_ETRUNC) {
		struct nns_err e2;
		int rc2;

		nns_err_clear(&e2);
		model_reopen(m);
		if (classify(m, r.rank))
			rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", devdir);
		else if ((rc2 = mstl_add_steps(m, &e2)) != NNS_OK) {
			*err = e2;
			rc = rc2;
		} else if ((rc2 = model_finalize(m, &e2)) != NNS_OK) {
			*err = e2;
			rc = rc2;
		}
	}
	/* what the Trace view offers: the rank, its sub-graphs, the view shown */
	nm = mstl_models(root, devdir, models, MSTL_MODELS_MAX);
	list[0] = '\0';
	for (int i = 0; i < nm && len >= 0 && (size_t)len < sizeof(list); i++)
		len += snprintf(list + len, sizeof(list) - (size_t)len, "%s%d", i ? "," : "",
				models[i]);
	snprintf(num, sizeof(num), "%d", r.rank);
	if ((rc == NNS_OK || rc == NNS_ETRUNC) &&
	    (model_add_meta(m, "msprof_rank", num) || model_add_meta(m, "msprof_models", list) ||
	     model_add_meta(m, "msprof_view", canon) || model_add_meta(m, "device_kind", "NPU") ||
	     model_add_meta(m, "trace_tracks", "threads")))
		rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", devdir);
	if (rc && rc != NNS_ETRUNC)
		model_release(m);
	return rc;
}
