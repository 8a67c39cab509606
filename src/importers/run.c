/* run.c - run / worker / span discovery on the file system (see run.h):
 * Kineto and .nnst traces told apart from other files by their content,
 * the files left out with the reason, and the host_info CSVs beside the
 * traces. */
#include "importers/run.h"
#include "importers/run_int.h"
#include "common/fs.h"
#include "importers/hostinfo.h"
#include "importers/ms_load.h"
#include "importers/ms_timeline.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUN_PATH_MAX 4096
#define RUN_SKIPPED_MAX 1000 /* skip notes kept; more are only counted */

struct walk {
	struct run_set *rs;
	struct run_limits lim;
	size_t entries;
	const char *root; /* as given, without trailing slashes */
	char *root_name;  /* base name of the root */
	struct {
		dev_t dev;
		ino_t ino;
	} anc[128]; /* directories on the current path */
	int nanc;
	size_t deep_dirs; /* directories past lim.max_depth, not walked */
	struct nns_err *err;
	const struct fs_root *fsr; /* NULL, or every open is beneath it */
};

static char *join(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	int slash = na && a[na - 1] != '/';
	char *s;

	if (na + nb + 2 > RUN_PATH_MAX)
		return NULL;
	s = malloc(na + nb + 2);
	if (!s)
		return NULL;
	memcpy(s, a, na);
	if (slash)
		s[na++] = '/';
	memcpy(s + na, b, nb + 1);
	return s;
}

static void found_free(struct found *f)
{
	free(f->worker);
	free(f->suffix);
	free(f->path);
}

static int found_cmp(const void *x, const void *y)
{
	const struct found *a = x, *b = y;
	int c = strcmp(a->worker, b->worker);

	if (c)
		return c;
	if (a->numeric && b->numeric) {
		/* .nnst ordinals: <w>.nnst, <w>.2.nnst, ..., <w>.10.nnst */
		size_t la = a->suffix ? strlen(a->suffix) : 0,
		       lb = b->suffix ? strlen(b->suffix) : 0;

		if (la != lb)
			return la < lb ? -1 : 1;
	}
	c = strcmp(a->suffix ? a->suffix : "", b->suffix ? b->suffix : "");
	return c ? c : strcmp(a->path, b->path);
}

static void worker_free(struct run_worker *wk)
{
	for (size_t s = 0; s < wk->spans.n; s++) {
		free(wk->spans.v[s].name);
		free(wk->spans.v[s].suffix);
		free(wk->spans.v[s].path);
	}
	vec_free(&wk->spans);
	free(wk->name);
}

static void run_free(struct run *r)
{
	for (size_t w = 0; w < r->workers.n; w++)
		worker_free(&r->workers.v[w]);
	vec_free(&r->workers);
	for (size_t i = 0; i < r->host_info.n; i++)
		free(r->host_info.v[i]);
	vec_free(&r->host_info);
	free(r->name);
	free(r->dir);
}

void run_set_release(struct run_set *rs)
{
	for (size_t i = 0; i < rs->runs.n; i++)
		run_free(&rs->runs.v[i]);
	vec_free(&rs->runs);
	for (size_t i = 0; i < rs->skipped.n; i++) {
		free(rs->skipped.v[i].path);
		free(rs->skipped.v[i].reason);
	}
	vec_free(&rs->skipped);
	rs->skipped_more = 0;
	rs->files = 0;
	rs->single_file = 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* host_info_<N>.csv files directly in dir; bounded (1000 files). */
static int scan_host_info(const struct fs_root *fsr, struct run *r, const char *dir)
{
	struct dirent *de;
	DIR *dp = fs_opendir_beneath(fsr, dir);
	int rc = NNS_OK;

	if (!dp)
		return NNS_OK;
	while (rc == NNS_OK && (de = readdir(dp)) != NULL && r->host_info.n < 1000) {
		struct stat st;
		char *path;

		if (hostinfo_file_rank(de->d_name) < 0)
			continue;
		path = join(dir, de->d_name);
		if (!path)
			continue;
		if (fs_stat_beneath(fsr, path, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (vec_push(&r->host_info, path)) {
			free(path);
			rc = NNS_ENOMEM;
		}
	}
	closedir(dp);
	return rc;
}

/* The MindSpore host_info CSVs of a run: in its directory and in its
 * host_info/ subdirectory (where nnscope's collector writes them). */
static int find_host_info(const struct fs_root *fsr, struct run *r)
{
	char *sub = join(r->dir, "host_info");
	int rc = scan_host_info(fsr, r, r->dir);

	if (rc == NNS_OK && sub)
		rc = scan_host_info(fsr, r, sub);
	free(sub);
	if (r->host_info.n > 1)
		qsort(r->host_info.v, r->host_info.n, sizeof(*r->host_info.v), str_cmp);
	return rc;
}

/* Builds a run from the files found in one directory; takes ownership of
 * the strings in f[0..n) (freed or moved) in every case. */
static int add_run(const struct fs_root *fsr, struct run_set *rs, char *name, char *dir,
		   struct found *f, size_t n)
{
	struct run r;
	size_t i = 0;
	int rc = NNS_OK;

	memset(&r, 0, sizeof(r));
	r.name = name;
	r.dir = dir;
	if (n > 1)
		qsort(f, n, sizeof(*f), found_cmp);
	while (i < n && rc == NNS_OK) {
		struct run_worker w;
		size_t j = i;

		memset(&w, 0, sizeof(w));
		while (j < n && strcmp(f[j].worker, f[i].worker) == 0)
			j++;
		w.name = f[i].worker;
		f[i].worker = NULL;
		if (vec_reserve(&w.spans, j - i)) {
			rc = NNS_ENOMEM;
		} else {
			int named = j - i > 1 || f[i].suffix;

			for (size_t k = i; k < j; k++) {
				struct run_span s = {NULL, f[k].suffix, f[k].path};
				char num[24];

				if (named) {
					snprintf(num, sizeof(num), "%zu", k - i + 1);
					s.name = strdup(num);
					if (!s.name)
						rc = NNS_ENOMEM;
				}
				f[k].suffix = f[k].path = NULL;
				w.spans.v[w.spans.n++] = s;
			}
		}
		if (vec_push(&r.workers, w)) {
			worker_free(&w);
			rc = NNS_ENOMEM;
		}
		i = j;
	}
	for (size_t k = 0; k < n; k++)
		found_free(&f[k]);
	if (rc == NNS_OK)
		rc = find_host_info(fsr, &r);
	if (rc == NNS_OK && vec_push(&rs->runs, r) == 0) {
		rs->files += n;
		return NNS_OK;
	}
	run_free(&r);
	return NNS_ENOMEM;
}

static char *rel_name(const struct walk *wk, const char *dir)
{
	size_t nr = strlen(wk->root);

	if (strcmp(dir, wk->root) == 0)
		return strdup(wk->root_name);
	if (strncmp(dir, wk->root, nr) == 0 && dir[nr] == '/')
		return strdup(dir + nr + 1);
	if (strcmp(wk->root, "/") == 0)
		return strdup(dir + 1);
	return strdup(dir);
}

static int walk_dir(struct walk *wk, const char *dir, int depth);
static int discover(struct run_set *rs, const struct fs_root *fsr, const char *path,
		    const struct run_limits *lim, struct nns_err *err);

/* What one directory holds while it is scanned. */
struct dir_scan {
	struct found *fv;
	size_t fn, fcap;
	VEC(char *) subdirs;	    /* names, walked after the scan */
	VEC(struct run_skip) skips; /* files left out here */
	int ms;			    /* holds MindSpore per-device files */
	int msprof;		    /* its PROF_* are an msprof timeline (2: it is one) */
};

static void dir_scan_release(struct dir_scan *ds)
{
	for (size_t i = 0; i < ds->fn; i++)
		found_free(&ds->fv[i]);
	free(ds->fv);
	for (size_t i = 0; i < ds->subdirs.n; i++)
		free(ds->subdirs.v[i]);
	vec_free(&ds->subdirs);
	for (size_t i = 0; i < ds->skips.n; i++) {
		free(ds->skips.v[i].path);
		free(ds->skips.v[i].reason);
	}
	vec_free(&ds->skips);
}

static int add_skip(struct dir_scan *ds, const char *path, const char *why)
{
	struct run_skip k = {strdup(path), strdup(why)};

	if (!k.path || !k.reason || vec_push(&ds->skips, k)) {
		free(k.path);
		free(k.reason);
		return NNS_ENOMEM;
	}
	return NNS_OK;
}

static int scan_entries(struct walk *wk, const char *dir, DIR *dp, struct dir_scan *ds)
{
	struct dirent *de;
	int rc = NNS_OK;

	while (rc == NNS_OK && (de = readdir(dp)) != NULL) {
		char wbuf[1024], sbuf[64], why[FS_PATH_MAX + 96];
		struct found f = {NULL, NULL, NULL, -1, 0, 0};
		struct stat st;
		char *path;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++wk->entries > wk->lim.max_entries)
			return nns_err_set(
			    wk->err, NNS_ENOMEM,
			    "%s: more than %zu directory entries; give a narrower path", wk->root,
			    wk->lim.max_entries);
		path = join(dir, de->d_name);
		if (!path)
			return nns_err_set(wk->err, NNS_ENOMEM,
					   "%s/%s: path too long or out of memory", dir,
					   de->d_name);
		if (fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			free(path);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			char *name;

			free(path);
			/* hidden directories (.git, nnscope's .nnscope-cache) hold no runs */
			if (de->d_name[0] == '.')
				continue;
			name = strdup(de->d_name);
			if (!name || vec_push(&ds->subdirs, name)) {
				free(name);
				return nns_err_set(wk->err, NNS_ENOMEM, "out of memory");
			}
			continue;
		}
		/* a symlink counts only if it points at a regular file (beneath
		 * the root: a trace's link that leads out is listed as refused) */
		if (S_ISLNK(st.st_mode) &&
		    (fs_stat_beneath(wk->fsr, path, &st) != 0 || !S_ISREG(st.st_mode))) {
			int e = errno;

			if (fs_refused(wk->fsr, e) && run_candidate(de->d_name)) {
				fs_why(why, sizeof(why), wk->fsr, e);
				if (add_skip(ds, path, why))
					rc = nns_err_set(wk->err, NNS_ENOMEM, "out of memory");
			}
			free(path);
			continue;
		}
		if (!S_ISREG(st.st_mode) ||
		    !run_classify(wk->fsr, de->d_name, path, wbuf, sizeof(wbuf), sbuf, sizeof(sbuf),
				  &f, why, sizeof(why))) {
			if (S_ISREG(st.st_mode) && why[0] && add_skip(ds, path, why))
				rc = nns_err_set(wk->err, NNS_ENOMEM, "out of memory");
			free(path);
			continue;
		}
		if (f.ms_prio >= 0)
			ds->ms = 1;
		if (wk->rs->files + ds->fn >= wk->lim.max_files) {
			free(path);
			return nns_err_set(wk->err, NNS_ENOMEM,
					   "%s: more than %zu trace files; give a narrower path",
					   wk->root, wk->lim.max_files);
		}
		if (ds->fn == ds->fcap &&
		    vec_reserve_raw((void **)&ds->fv, &ds->fcap, ds->fn + 1, sizeof(*ds->fv))) {
			free(path);
			return nns_err_set(wk->err, NNS_ENOMEM, "out of memory");
		}
		f.worker = strdup(wbuf);
		f.suffix = sbuf[0] ? strdup(sbuf) : NULL;
		f.path = path;
		ds->fv[ds->fn++] = f;
		if (!f.worker || (sbuf[0] && !f.suffix))
			rc = nns_err_set(wk->err, NNS_ENOMEM, "out of memory");
	}
	return rc;
}

/* A MindSpore device has many files in its directory: keep one per
 * device, its best anchor (ms_load.h), and drop the rest. */
static void ms_keep_anchors(struct found *fv, size_t *fn)
{
	size_t out = 0;

	/* first mark (ms_prio -2: dropped) comparing only unmodified entries,
	 * then free and compact */
	for (size_t i = 0; i < *fn; i++) {
		for (size_t j = 0; fv[i].ms_prio >= 0 && j < *fn; j++) {
			if (j == i || fv[j].ms_prio < 0 || strcmp(fv[i].worker, fv[j].worker))
				continue;
			if (fv[j].ms_prio < fv[i].ms_prio || (fv[j].ms_prio == fv[i].ms_prio &&
							      strcmp(fv[j].path, fv[i].path) < 0)) {
				fv[i].ms_prio = -2 - fv[i].ms_prio; /* <= -2, still ordered */
				break;
			}
		}
	}
	for (size_t i = 0; i < *fn; i++) {
		if (fv[i].ms_prio <= -2)
			found_free(&fv[i]);
		else
			fv[out++] = fv[i];
	}
	*fn = out;
}

/* In a MindSpore profiler directory the other JSON files (summaries,
 * pipeline, flops ...) belong to its layout: they are neither workers nor
 * worth a skip note. */
static void ms_drop_plain(struct dir_scan *ds)
{
	size_t out = 0;

	for (size_t i = 0; i < ds->fn; i++) {
		if (ds->fv[i].plain)
			found_free(&ds->fv[i]);
		else
			ds->fv[out++] = ds->fv[i];
	}
	ds->fn = out;
	for (size_t i = 0; i < ds->skips.n; i++) {
		free(ds->skips.v[i].path);
		free(ds->skips.v[i].reason);
	}
	ds->skips.n = 0;
}

static int found_worker_cmp(const void *x, const void *y)
{
	const struct found *a = x, *b = y;
	int c = strcmp(a->worker, b->worker);

	return c ? c : strcmp(a->path, b->path);
}

/* Hand-named files of one directory may strip to the same worker
 * ("a.json" and "a.json.gz", or "a.json" beside "a.pt.trace.json"): each
 * such file keeps its whole file name as its worker, so that no two
 * traces become spans of one worker by accident. */
static int unique_workers(struct found *fv, size_t fn)
{
	size_t i = 0;

	if (fn > 1)
		qsort(fv, fn, sizeof(*fv), found_worker_cmp);
	while (i < fn) {
		size_t j = i + 1;

		while (j < fn && strcmp(fv[j].worker, fv[i].worker) == 0)
			j++;
		for (size_t k = i; j - i > 1 && k < j; k++) {
			const char *b;
			char *w;

			if (!fv[k].plain)
				continue;
			b = strrchr(fv[k].path, '/');
			w = strdup(b ? b + 1 : fv[k].path);
			if (!w)
				return NNS_ENOMEM;
			free(fv[k].worker);
			fv[k].worker = w;
		}
		i = j;
	}
	return NNS_OK;
}

static int keep_skips(struct walk *wk, struct dir_scan *ds)
{
	for (size_t i = 0; i < ds->skips.n; i++) {
		if (wk->rs->skipped.n >= RUN_SKIPPED_MAX) {
			wk->rs->skipped_more++;
			continue;
		}
		if (vec_push(&wk->rs->skipped, ds->skips.v[i]))
			return nns_err_set(wk->err, NNS_ENOMEM, "out of memory");
		ds->skips.v[i].path = ds->skips.v[i].reason = NULL;
	}
	return NNS_OK;
}

/* A subdirectory past the depth limit: listed with the skipped files (the
 * first of each directory), and counted for the "no traces" message. */
static int too_deep(struct walk *wk, const char *dir, const char *sub)
{
	char why[96];

	wk->deep_dirs++;
	if (wk->rs->skipped.n >= RUN_SKIPPED_MAX) {
		wk->rs->skipped_more++;
		return NNS_OK;
	}
	snprintf(why, sizeof(why), "deeper than %d levels: not walked", wk->lim.max_depth);
	struct run_skip k = {join(dir, sub), strdup(why)};

	if (!k.path || !k.reason || vec_push(&wk->rs->skipped, k)) {
		free(k.path);
		free(k.reason);
		return nns_err_set(wk->err, NNS_ENOMEM, "out of memory");
	}
	return NNS_OK;
}

/* The msprof timeline of dir's PROF_* subdirectories (or of dir, a
 * PROF_*): one run, a worker rank_<r> per rank whose span is the rank's
 * device directory (ms_timeline.h). Named as dir's run, "<name>/msprof"
 * when dir is a run of its own already. */
static int add_msprof_run(struct walk *wk, const char *dir, struct dir_scan *ds)
{
	struct mstl_ranks rk;
	struct found *fv;
	char *name, *d, w[32];
	const char *b = strrchr(dir, '/');
	size_t n = 0, total;
	int rc = mstl_find(wk->fsr, dir, ds->subdirs.v, ds->subdirs.n, &rk, wk->err);

	if (rc || rk.v.n == 0)
		return rc;
	total = rk.v.n;
	ds->msprof = strncmp(b ? b + 1 : dir, "PROF_", 5) == 0 ? 2 : 1;
	fv = calloc(rk.v.n, sizeof(*fv));
	name = rel_name(wk, dir);
	if (name && wk->rs->runs.n && strcmp(wk->rs->runs.v[wk->rs->runs.n - 1].name, name) == 0) {
		char *s = str_printf("%s/msprof", name);

		free(name);
		name = s;
	}
	d = strdup(dir);
	for (size_t i = 0; fv && i < rk.v.n; i++, n++) {
		snprintf(w, sizeof(w), "rank_%d", rk.v.v[i].rank);
		fv[i].ms_prio = -1;
		fv[i].worker = strdup(w);
		fv[i].path = rk.v.v[i].dir;
		rk.v.v[i].dir = NULL;
		if (!fv[i].worker)
			break;
	}
	mstl_ranks_release(&rk);
	if (!fv || !name || !d || n < total) {
		for (size_t i = 0; fv && i < n + (n < total); i++)
			found_free(&fv[i]);
		free(fv);
		free(name);
		free(d);
		return nns_err_set(wk->err, NNS_ENOMEM, "out of memory");
	}
	rc = add_run(wk->fsr, wk->rs, name, d, fv, n);
	free(fv);
	return rc ? nns_err_set(wk->err, NNS_ENOMEM, "out of memory") : NNS_OK;
}

static int walk_dir(struct walk *wk, const char *dir, int depth)
{
	struct dir_scan ds;
	struct stat st;
	DIR *dp;
	int rc;

	dp = fs_opendir_beneath(wk->fsr, dir); /* the directory read is the one checked */
	if (!dp) {
		char why[FS_PATH_MAX + 96];

		fs_why(why, sizeof(why), wk->fsr, errno);
		if (depth == 0)
			return nns_err_set(wk->err, NNS_EIO, "%s: cannot read directory: %s", dir,
					   why);
		return NNS_OK; /* unreadable subdirectory: skipped */
	}
	rc = fstat(dirfd(dp), &st) != 0 || wk->nanc >= (int)(sizeof(wk->anc) / sizeof(wk->anc[0]));
	for (int i = 0; !rc && i < wk->nanc; i++)
		rc = wk->anc[i].dev == st.st_dev && wk->anc[i].ino == st.st_ino; /* a loop */
	if (rc) {
		closedir(dp);
		return NNS_OK;
	}
	memset(&ds, 0, sizeof(ds));
	rc = scan_entries(wk, dir, dp, &ds);
	closedir(dp);
	if (rc == NNS_OK && ds.ms)
		ms_drop_plain(&ds);
	if (rc == NNS_OK)
		ms_keep_anchors(ds.fv, &ds.fn);
	if (rc == NNS_OK)
		rc = keep_skips(wk, &ds);
	if (rc == NNS_OK && unique_workers(ds.fv, ds.fn))
		rc = nns_err_set(wk->err, NNS_ENOMEM, "out of memory");
	if (rc == NNS_OK && ds.fn > 0) {
		char *name = rel_name(wk, dir), *d = strdup(dir);

		if (!name || !d) {
			free(name);
			free(d);
			rc = nns_err_set(wk->err, NNS_ENOMEM, "out of memory");
		} else if (add_run(wk->fsr, wk->rs, name, d, ds.fv, ds.fn)) {
			rc = nns_err_set(wk->err, NNS_ENOMEM, "out of memory");
		}
		ds.fn = 0; /* add_run consumed them */
	}
	if (rc == NNS_OK)
		rc = add_msprof_run(wk, dir, &ds);
	/* subdirectories in name order, after this directory's files; a
	 * MindSpore profiler directory's PROF_* raw data is read with it */
	if (ds.subdirs.n > 1)
		qsort(ds.subdirs.v, ds.subdirs.n, sizeof(*ds.subdirs.v), str_cmp);
	wk->anc[wk->nanc].dev = st.st_dev;
	wk->anc[wk->nanc].ino = st.st_ino;
	wk->nanc++;
	for (size_t i = 0; rc == NNS_OK && i < ds.subdirs.n; i++) {
		char *path;

		if ((ds.ms || ds.msprof) && strncmp(ds.subdirs.v[i], "PROF_", 5) == 0)
			continue;
		if (ds.ms && strcmp(ds.subdirs.v[i], "data") == 0) /* a raw job's data/ */
			continue;
		if (ds.msprof == 2) /* a PROF_* directory read as a timeline */
			continue;
		if (depth + 1 >= wk->lim.max_depth) {
			rc = too_deep(wk, dir, ds.subdirs.v[i]);
			break;
		}
		path = join(dir, ds.subdirs.v[i]);
		if (!path) {
			rc = nns_err_set(wk->err, NNS_ENOMEM,
					 "%s/%s: path too long or out of memory", dir,
					 ds.subdirs.v[i]);
			break;
		}
		rc = walk_dir(wk, path, depth + 1);
		free(path);
	}
	wk->nanc--;
	dir_scan_release(&ds);
	return rc;
}

static int run_cmp(const void *x, const void *y)
{
	return strcmp(((const struct run *)x)->name, ((const struct run *)y)->name);
}

/* Base name of a path (no trailing slashes); for "." or ".." the base name
 * of its real path. */
static char *base_name(const char *path)
{
	char real[PATH_MAX];
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	if (strcmp(b, ".") == 0 || strcmp(b, "..") == 0 || *b == '\0') {
		if (realpath(path, real)) {
			const char *r = strrchr(real, '/');

			r = r ? r + 1 : real;
			return strdup(*r ? r : "root");
		}
		return strdup("run");
	}
	return strdup(b);
}

static int single_file(struct walk *wk, const char *path)
{
	char wbuf[1024], sbuf[64] = "", *slash;
	struct found f = {NULL, NULL, NULL, -1, 0, 0};
	int ms_dev, ms_prio;
	char *dir, *name;
	const char *base;

	slash = strrchr(path, '/');
	base = slash ? slash + 1 : path;
	dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (dir && !*dir) {
		free(dir);
		dir = strdup("/");
	}
	if (ms_match_file(base, &ms_dev, &ms_prio)) {
		snprintf(wbuf, sizeof(wbuf), "device_%d", ms_dev);
		f.worker = strdup(wbuf);
	} else if (run_match_name(base, wbuf, sizeof(wbuf), sbuf, sizeof(sbuf)) ||
		   run_match_nnst(base, wbuf, sizeof(wbuf), sbuf, sizeof(sbuf))) {
		f.worker = strdup(wbuf);
		f.suffix = sbuf[0] ? strdup(sbuf) : NULL;
	} else {
		f.worker = run_strip_ext(base);
	}
	f.path = strdup(path);
	name = dir ? base_name(dir) : NULL;
	if (!dir || !name || !f.worker || !f.path || (sbuf[0] && !f.suffix && f.worker)) {
		free(dir);
		free(name);
		found_free(&f);
		return nns_err_set(wk->err, NNS_ENOMEM, "out of memory");
	}
	wk->rs->single_file = 1;
	if (add_run(wk->fsr, wk->rs, name, dir, &f, 1))
		return nns_err_set(wk->err, NNS_ENOMEM, "out of memory");
	return NNS_OK;
}

int run_discover(struct run_set *rs, const char *path, const struct run_limits *lim,
		 struct nns_err *err)
{
	return discover(rs, NULL, path, lim, err);
}

int run_discover_in(struct run_set *rs, const struct fs_root *root, const struct run_limits *lim,
		    struct nns_err *err)
{
	return discover(rs, root, root->path, lim, err);
}

static int discover(struct run_set *rs, const struct fs_root *fsr, const char *path,
		    const struct run_limits *lim, struct nns_err *err)
{
	struct walk wk;
	struct stat st;
	char root[RUN_PATH_MAX];
	size_t n = strlen(path);
	int rc;

	memset(rs, 0, sizeof(*rs));
	memset(&wk, 0, sizeof(wk));
	wk.rs = rs;
	wk.err = err;
	wk.fsr = fsr;
	wk.lim.max_entries = lim && lim->max_entries ? lim->max_entries : 1000000;
	wk.lim.max_files = lim && lim->max_files ? lim->max_files : 100000;
	wk.lim.max_depth = lim && lim->max_depth > 0 ? lim->max_depth : 64;
	if (n == 0 || n >= sizeof(root))
		return nns_err_set(err, NNS_EINVAL, "%s: bad path", path);
	if (fs_stat_beneath(fsr, path, &st) != 0)
		return nns_err_set(err,
				   errno == ENOENT || errno == ENOTDIR ? NNS_ENOTFOUND : NNS_EIO,
				   "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (!S_ISREG(st.st_mode))
			return nns_err_set(err, NNS_EINVAL, "%s: not a file or directory", path);
		rc = single_file(&wk, path);
		if (rc)
			run_set_release(rs);
		return rc;
	}
	memcpy(root, path, n + 1);
	while (n > 1 && root[n - 1] == '/')
		root[--n] = '\0';
	wk.root = root;
	wk.root_name = base_name(root);
	if (!wk.root_name)
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	rc = walk_dir(&wk, root, 0);
	if (rc == NNS_OK && rs->runs.n == 0 && wk.deep_dirs)
		rc = nns_err_set(err, NNS_ENOTFOUND,
				 "%s: no traces found within %d directory levels; %zu "
				 "director%s deeper than %d levels: not walked (listed above)",
				 path, wk.lim.max_depth, wk.deep_dirs,
				 wk.deep_dirs == 1 ? "y" : "ies", wk.lim.max_depth);
	else if (rc == NNS_OK && rs->runs.n == 0)
		rc =
		    nns_err_set(err, NNS_ENOTFOUND,
				"%s: no traces found (*.json[.gz] holding traceEvents or an event "
				"array, *.nnst, MindSpore profiler files)%s",
				path, rs->skipped.n ? "; the files left out are listed above" : "");
	free(wk.root_name);
	if (rc == NNS_ENOTFOUND)
		return rc; /* no runs; rs->skipped says what was left out */
	if (rc) {
		run_set_release(rs);
		return rc;
	}
	if (rs->runs.n > 1)
		qsort(rs->runs.v, rs->runs.n, sizeof(*rs->runs.v), run_cmp);
	return NNS_OK;
}

const struct run_worker *run_find_worker(const struct run *r, const char *name)
{
	for (size_t i = 0; i < r->workers.n; i++)
		if (strcmp(r->workers.v[i].name, name) == 0)
			return &r->workers.v[i];
	return NULL;
}

const struct run_span *run_find_span(const struct run_worker *w, const char *name)
{
	for (size_t i = 0; i < w->spans.n; i++) {
		const struct run_span *s = &w->spans.v[i];

		if ((s->name && strcmp(s->name, name) == 0) ||
		    (s->suffix && strcmp(s->suffix, name) == 0))
			return s;
	}
	return NULL;
}

int run_is_mindspore(const struct run *r)
{
	for (size_t i = 0; i < r->workers.n; i++) {
		const struct run_worker *w = &r->workers.v[i];
		const char *p = w->spans.n ? w->spans.v[0].path : NULL, *b;
		int dev, prio;

		if (!p)
			return 0;
		b = strrchr(p, '/');
		if (!ms_match_file(b ? b + 1 : p, &dev, &prio))
			return 0;
	}
	return r->workers.n > 0;
}
