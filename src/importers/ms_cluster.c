/*
 * ms_cluster.c - finds the ranks of a MindSpore cluster job (ms_cluster.h)
 * and loads each rank's files, ranks in parallel on a small pthread pool.
 *
 * Layouts:
 *   new: DIR/ (or DIR/profiler/) holding step_trace_raw_<r>_detail_time.csv,
 *        ascend_cluster_analyse_<mode>_<stages>_<ranks>_<r>.csv, hccl_raw_<r>.csv,
 *        flops_summary_<r>.json of every rank;
 *   old: DIR/hccl.json, DIR/host_ips_mapping.txt, DIR/cluster_profiler/<N>/profiler/
 *        with the same files; the rank's host is N (the mapped host id).
 */
#include "importers/ms_cluster.h"
#include "common/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MSC_THREADS_MAX 16
#define MSC_DIRS_MAX 1024

static int is_dir(const struct fs_root *root, const char *p)
{
	struct stat st;

	return fs_stat_beneath(root, p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* "step_trace_raw_<r>_detail_time.csv" -> r, else -1. */
static int step_trace_rank(const char *name)
{
	int r = -1, used = 0;

	if (sscanf(name, "step_trace_raw_%d_detail_time.csv%n", &r, &used) == 1 &&
	    name[used] == '\0' && r >= 0 && r < MSC_MAX_RANKS)
		return r;
	return -1;
}

int msc_cluster_name(const char *name, char *device, size_t dsize, char *mode, size_t msize,
		     int *stages, int *ranks, int *rank)
{
	char dev[8], md[32];
	int s, n, r, used = 0;

	if (sscanf(name, "%7[a-z]_cluster_analyse_%31[a-z]-parallel_%d_%d_%d.csv%n", dev, md, &s,
		   &n, &r, &used) != 5 ||
	    name[used] != '\0' || s < 1 || n < 1 || r < 0 || r >= MSC_MAX_RANKS ||
	    n > MSC_MAX_RANKS)
		return -1;
	if (strcmp(dev, "ascend") != 0 && strcmp(dev, "gpu") != 0)
		return -1;
	if (device)
		snprintf(device, dsize, "%s", dev);
	if (mode)
		snprintf(mode, msize, "%s-parallel", md);
	*stages = s;
	*ranks = n;
	*rank = r;
	return 0;
}

/* Counts the cluster files of one directory: step traces and cluster csvs. */
static void count_dir(const struct fs_root *root, const char *dir, int *traces, int *csvs)
{
	DIR *d = fs_opendir_beneath(root, dir);
	struct dirent *e;

	*traces = *csvs = 0;
	if (!d)
		return;
	while ((e = readdir(d))) {
		int s, n, r;

		if (step_trace_rank(e->d_name) >= 0)
			(*traces)++;
		else if (msc_cluster_name(e->d_name, NULL, 0, NULL, 0, &s, &n, &r) == 0)
			(*csvs)++;
	}
	closedir(d);
}

/* The directory holding the new layout's files: dir or dir/profiler. */
static int new_layout_dir(const struct fs_root *root, const char *path, char *out, size_t size)
{
	int t, c;

	snprintf(out, size, "%s", path);
	count_dir(root, out, &t, &c);
	if (t >= 2 || c >= 1)
		return 0;
	snprintf(out, size, "%s/profiler", path);
	count_dir(root, out, &t, &c);
	return t >= 2 || c >= 1 ? 0 : -1;
}

int msc_is_cluster(const char *path)
{
	return msc_is_cluster_in(NULL, path);
}

int msc_is_cluster_in(const struct fs_root *root, const char *path)
{
	char p[4096];

	if (!path || !is_dir(root, path))
		return 0;
	snprintf(p, sizeof(p), "%s/cluster_profiler", path);
	if (is_dir(root, p))
		return 1;
	return new_layout_dir(root, path, p, sizeof(p)) == 0;
}

static int dir_is_job(const struct fs_root *root, const char *dir)
{
	char p[4096];
	int t, c;

	if (!dir || !is_dir(root, dir))
		return 0;
	snprintf(p, sizeof(p), "%s/cluster_profiler", dir);
	if (is_dir(root, p))
		return 1;
	count_dir(root, dir, &t, &c);
	return t >= 2 || c >= 1;
}

int msc_dir_is_job(const char *dir)
{
	return dir_is_job(NULL, dir);
}

/* 1 if the only subdirectory of dir is profiler/ (a rank's output dir). */
static int only_profiler_subdir(const struct fs_root *root, const char *dir)
{
	DIR *d = fs_opendir_beneath(root, dir);
	struct dirent *e;
	int other = 0, prof = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (strcmp(e->d_name, "profiler") == 0)
			prof = 1;
		else
			other = 1;
	}
	closedir(d);
	return prof && !other;
}

struct walk {
	msc_job_fn fn;
	void *ctx;
	size_t entries, found;
	int max_depth;
	const struct fs_root *root;
};

static int walk_dir(struct walk *w, const char *path, const char *rel, int depth)
{
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (depth > w->max_depth || !(d = fs_opendir_beneath(w->root, path)))
		return 0;
	while (rc == 0 && (e = readdir(d))) {
		char sub[4096], subrel[4096];
		struct stat st;

		if (e->d_name[0] == '.' || ++w->entries > MSC_WALK_ENTRIES_MAX)
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) >= (int)sizeof(sub) ||
		    snprintf(subrel, sizeof(subrel), "%s%s%s", rel, rel[0] ? "/" : "", e->d_name) >=
			(int)sizeof(subrel))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (dir_is_job(w->root, sub)) {
			if (w->found >= MSC_WALK_JOBS_MAX)
				break;
			w->found++;
			rc = w->fn(w->ctx, sub, subrel);
		} else {
			rc = walk_dir(w, sub, subrel, depth + 1);
		}
	}
	closedir(d);
	return rc;
}

int msc_find_jobs(const char *root, int max_depth, msc_job_fn fn, void *ctx, size_t *found)
{
	return msc_find_jobs_in(NULL, root, max_depth, fn, ctx, found);
}

int msc_find_jobs_in(const struct fs_root *fsr, const char *root, int max_depth, msc_job_fn fn,
		     void *ctx, size_t *found)
{
	struct walk w = {fn, ctx, 0, 0, max_depth, fsr};
	int rc;

	if (found)
		*found = 0;
	if (!root || !is_dir(fsr, root))
		return 0;
	if (dir_is_job(fsr, root) ||
	    (msc_is_cluster_in(fsr, root) && only_profiler_subdir(fsr, root))) {
		w.found = 1;
		rc = fn(ctx, root, "");
	} else {
		rc = walk_dir(&w, root, "", 1);
	}
	if (found)
		*found = w.found;
	return rc;
}

/* ---- files ---------------------------------------------------------------- */

/* Reads a whole file (capped) beneath root. 0, -1 absent, -2 error (why
 * in err: a file that resolves outside root says so, not its path). */
static int slurp(const struct fs_root *root, const char *path, char **buf, size_t *len,
		 struct nns_err *err)
{
	FILE *f = fs_fopen_beneath(root, path);
	char *b = NULL;
	size_t n = 0, cap = 0;
	char why[FS_PATH_MAX + 96];

	*buf = NULL;
	*len = 0;
	if (!f) {
		if (errno == ENOENT)
			return -1;
		fs_why(why, sizeof(why), root, errno);
		if (fs_refused(root, errno))
			nns_err_set(err, NNS_EIO, "%s", why);
		else
			nns_err_set(err, NNS_EIO, "%s: %s", path, why);
		return -2;
	}
	for (;;) {
		size_t got;

		if (n == cap) {
			size_t nc = cap ? cap * 2 : 65536;
			char *nb;

			if (cap >= MSC_FILE_MAX) {
				nns_err_set(err, NNS_ENOMEM, "%s: larger than %zu MB", path,
					    MSC_FILE_MAX >> 20);
				goto bad;
			}
			nb = realloc(b, nc);
			if (!nb) {
				nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
				goto bad;
			}
			b = nb;
			cap = nc;
		}
		got = fread(b + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		nns_err_set(err, NNS_EIO, "%s: read error", path);
		goto bad;
	}
	fclose(f);
	*buf = b;
	*len = n;
	return 0;
bad:
	free(b);
	fclose(f);
	return -2;
}

/* One rank to load: where its files are. */
struct job_rank {
	char dir[4096];
	int rank;
};

struct todo_vec {
	struct job_rank *v;
	size_t n, cap;
};

struct pool {
	struct msc_job *j;
	const struct job_rank *todo;
	size_t next;
	pthread_mutex_t mu;
	const struct fs_root *root;
};

typedef int (*parse_fn)(struct msc_rank *, const char *, size_t, struct nns_err *);

static void load_file(const struct fs_root *root, struct msc_rank *r, const char *dir,
		      const char *name, parse_fn fn)
{
	char path[4400];
	struct nns_err err;
	char *buf;
	size_t len;
	int rc;

	nns_err_clear(&err);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	rc = slurp(root, path, &buf, &len, &err);
	if (rc == -1)
		return;
	if (rc == 0 && fn(r, buf, len, &err) == NNS_OK) {
		free(buf);
		return;
	}
	free(buf);
	if (!r->problem[0])
		snprintf(r->problem, sizeof(r->problem), "%.60s: %.90s", name, err.msg);
}

static void load_rank(const struct fs_root *root, struct msc_job *j, struct msc_rank *r,
		      const char *dir)
{
	char name[256];

	snprintf(name, sizeof(name), "step_trace_raw_%d_detail_time.csv", r->rank);
	load_file(root, r, dir, name, msc_parse_step_trace);
	if (j->device[0]) {
		snprintf(name, sizeof(name), "%s_cluster_analyse_%s_%d_%d_%d.csv", j->device,
			 j->mode, j->stage_num, j->rank_size, r->rank);
		load_file(root, r, dir, name, msc_parse_cluster_csv);
	}
	snprintf(name, sizeof(name), "hccl_raw_%d.csv", r->rank);
	load_file(root, r, dir, name, msc_parse_hccl);
	snprintf(name, sizeof(name), "flops_summary_%d.json", r->rank);
	load_file(root, r, dir, name, msc_parse_flops);
}

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&p->mu);
		i = p->next++;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->j->ranks.n)
			break;
		load_rank(p->root, p->j, &p->j->ranks.v[i], p->todo[i].dir);
	}
	return NULL;
}

/* Adds the ranks found in dir (host: mapped id or ""). */
static int scan_dir(const struct fs_root *root, struct msc_job *j, struct todo_vec *todo,
		    const char *dir, const char *host, struct nns_err *err)
{
	DIR *d = fs_opendir_beneath(root, dir);
	struct dirent *e;
	int rc = NNS_OK;

	if (!d)
		return NNS_OK;
	while ((e = readdir(d))) {
		char dev[8], mode[24];
		int r = step_trace_rank(e->d_name), s, n, cr;

		if (msc_cluster_name(e->d_name, dev, sizeof(dev), mode, sizeof(mode), &s, &n,
				     &cr) == 0) {
			if (!j->device[0]) {
				snprintf(j->device, sizeof(j->device), "%s", dev);
				snprintf(j->mode, sizeof(j->mode), "%s", mode);
				j->stage_num = s;
				j->rank_size = n;
			}
			if (r < 0)
				r = cr; /* a rank with a cluster csv but no step trace */
		}
		if (r < 0)
			continue;
		{
			int dup = 0;

			for (size_t i = 0; i < j->ranks.n; i++)
				dup |= j->ranks.v[i].rank == r;
			if (dup)
				continue;
		}
		{
			struct msc_rank x;
			struct job_rank t;

			if (j->ranks.n >= MSC_MAX_RANKS) {
				rc = nns_err_set(err, NNS_ENOMEM, "more than %d ranks",
						 MSC_MAX_RANKS);
				break;
			}
			memset(&x, 0, sizeof(x));
			x.rank = r;
			snprintf(x.host, sizeof(x.host), "%s", host);
			snprintf(t.dir, sizeof(t.dir), "%s", dir);
			t.rank = r;
			if (vec_push(&j->ranks, x) || vec_push(todo, t)) {
				rc = nns_err_set(err, NNS_ENOMEM, "out of memory");
				break;
			}
		}
	}
	closedir(d);
	return rc;
}

static int cmp_todo(const void *a, const void *b)
{
	const struct job_rank *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int cmp_rank(const void *a, const void *b)
{
	const struct msc_rank *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

int msc_load(struct msc_job *j, const char *path, int threads, struct nns_err *err)
{
	return msc_load_in(j, NULL, path, threads, err);
}

int msc_load_in(struct msc_job *j, const struct fs_root *root, const char *path, int threads,
		struct nns_err *err)
{
	struct todo_vec todo = {0};
	char dir[4096];
	pthread_t tid[MSC_THREADS_MAX];
	struct pool p;
	int rc = NNS_OK, started = 0;

	memset(j, 0, sizeof(*j));
	snprintf(j->mode, sizeof(j->mode), "data-parallel");
	j->stage_num = 1;
	snprintf(dir, sizeof(dir), "%s/cluster_profiler", path);
	if (is_dir(root, dir)) {
		DIR *d = fs_opendir_beneath(root, dir);
		struct dirent *e;
		size_t ndirs = 0;

		j->old_layout = 1;
		while (d && (e = readdir(d)) && rc == NNS_OK) {
			char sub[4400];

			if (e->d_name[0] == '.' || ++ndirs > MSC_DIRS_MAX)
				continue;
			snprintf(sub, sizeof(sub), "%s/%s/profiler", dir, e->d_name);
			if (is_dir(root, sub))
				rc = scan_dir(root, j, &todo, sub, e->d_name, err);
		}
		if (d)
			closedir(d);
	} else if (new_layout_dir(root, path, dir, sizeof(dir)) == 0) {
		rc = scan_dir(root, j, &todo, dir, "", err);
	}
	if (rc)
		goto out;
	if (j->ranks.n == 0) {
		rc = nns_err_set(
		    err, NNS_ENOTFOUND,
		    "%s: no MindSpore cluster files (step_trace_raw_<rank>_detail_time.csv)", path);
		goto out;
	}
	if (j->rank_size <= 0)
		j->rank_size = (int)j->ranks.n;
	/* same order in both arrays: sort both by rank */
	qsort(todo.v, todo.n, sizeof(*todo.v), cmp_todo);
	qsort(j->ranks.v, j->ranks.n, sizeof(*j->ranks.v), cmp_rank);

	if (threads <= 0) {
		long nc = sysconf(_SC_NPROCESSORS_ONLN);
		threads = nc > 0 ? (int)nc : 1;
	}
	if (threads > MSC_THREADS_MAX)
		threads = MSC_THREADS_MAX;
	if ((size_t)threads > j->ranks.n)
		threads = (int)j->ranks.n;
	memset(&p, 0, sizeof(p));
	p.j = j;
	p.todo = todo.v;
	p.root = root;
	pthread_mutex_init(&p.mu, NULL);
	for (int i = 1; i < threads; i++)
		if (pthread_create(&tid[started], NULL, worker, &p) == 0)
			started++;
	worker(&p); /* the calling thread works too */
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	pthread_mutex_destroy(&p.mu);
	for (size_t i = 0; i < j->ranks.n; i++)
		if (j->ranks.v[i].problem[0] && j->problems++ == 0)
			snprintf(j->note, sizeof(j->note), "rank %d: %.200s", j->ranks.v[i].rank,
				 j->ranks.v[i].problem);
out:
	vec_free(&todo);
	if (rc)
		msc_release(j);
	return rc;
}

void msc_release(struct msc_job *j)
{
	for (size_t i = 0; i < j->ranks.n; i++) {
		struct msc_rank *r = &j->ranks.v[i];

		vec_free(&r->st);
		vec_free(&r->cl);
		vec_free(&r->links);
		vec_free(&r->ops);
	}
	vec_free(&j->ranks);
}
