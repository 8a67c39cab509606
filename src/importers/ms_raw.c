/*
 * ms_raw.c - a raw Ascend profiling job into MindSpore's intermediate files
 * in memory (ms_raw.h): finds the job's files, reads them and runs the
 * converters of ms_raw_*.c.
 */
#include "importers/ms_raw.h"
#include "common/fs.h"
#include "importers/ms_raw_int.h"
#include "importers/ms_src.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum kind { K_TASK, K_GRAPH, K_POINT, K_TRACE, K_HWTS, K_AICPU, K_N };

static const char *const PREFIX[K_N] = {"Framework.host.", "Framework.host.",
					"Framework.host.", "training_trace.",
					"hwts.log.data.",  "DATA_PREPROCESS.dev.AICPU."};

static int ends(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && strcmp(s + a - b, suf) == 0;
}

static int digits(const char *s, size_t n, long *v)
{
	*v = 0;
	if (!n || n > 6)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		*v = *v * 10 + (s[i] - '0');
	}
	return 1;
}

/* The kind of a raw file name and its device; -1 when it is none. */
static int classify(const char *base, int *dev)
{
	const char *sl = strstr(base, ".slice_"), *p, *q;
	long v;
	int k;

	if (!sl || ends(base, ".done") || ends(base, ".zip"))
		return -1;
	for (k = 0; k < K_N; k++)
		if (strncmp(base, PREFIX[k], strlen(PREFIX[k])) == 0)
			break;
	if (k == K_N)
		return -1;
	if (k == K_TASK) {
		if (strstr(base, "task_desc_info."))
			k = K_TASK;
		else if (strstr(base, "graph_desc_info."))
			k = K_GRAPH;
		else if (strstr(base, ".point."))
			k = K_POINT;
		else
			return -1;
	}
	/* the device: the field before ".slice_", or before ".<job>.slice_" */
	for (int tries = 0; tries < 2; tries++) {
		for (q = sl, p = sl; p > base && p[-1] != '.'; p--)
			;
		if (p > base && digits(p, (size_t)(q - p), &v)) {
			*dev = (int)v;
			return k;
		}
		sl = p > base ? p - 1 : base;
	}
	return -1;
}

int ms_raw_match(const char *base, int *dev)
{
	return classify(base, dev) >= 0;
}

int ms_raw_job_dir(const char *dir, char *out, size_t n)
{
	size_t len = strlen(dir);
	int k;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len >= 5 && strncmp(dir + len - 5, "/data", 5) == 0)
		len -= 5;
	else if (len == 4 && strncmp(dir, "data", 4) == 0) {
		k = snprintf(out, n, ".");
		return k < 0 || (size_t)k >= n ? -1 : 0;
	}
	k = snprintf(out, n, "%.*s", (int)len, dir);
	return k < 0 || (size_t)k >= n ? -1 : 0;
}

int ms_raw_warn(struct ms_raw *r, const char *path, long long off, const char *fmt, ...)
{
	char *why, *msg;
	va_list ap;

	r->nwarn++;
	if (r->warnings.n >= MS_RAW_WARN_MAX)
		return NNS_OK;
	va_start(ap, fmt);
	why = str_vprintf(fmt, ap); /* whole: a warning may name long paths */
	va_end(ap);
	if (!why)
		return NNS_ENOMEM;
	msg = off >= 0 ? str_printf("%s: offset %lld: %s", path, off, why)
		       : str_printf("%s: %s", path, why);
	free(why);
	if (!msg || vec_push(&r->warnings, msg)) {
		free(msg);
		return NNS_ENOMEM;
	}
	return NNS_OK;
}

struct names {
	VEC(char *) v[K_N];
};

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 1 when base's field before ".slice_" is the job id tag (as in
 * "Framework.host.vm.task_desc_info.0.JOB2.slice_0"), else 0. */
static int tagged(const char *base, const char *tag)
{
	const char *sl = strstr(base, ".slice_"), *p;
	size_t n = strlen(tag);

	if (!sl || !n)
		return 0;
	for (p = sl; p > base && p[-1] != '.'; p--)
		;
	return (size_t)(sl - p) == n && strncmp(p, tag, n) == 0;
}

/* Lists dir's raw files of device dev by kind (sorted full paths); with
 * tag, only the framework files of that job (a container's data). */
static int list_tag(struct names *nm, const struct fs_root *root, const char *dir, int dev,
		    const char *tag)
{
	DIR *d = fs_opendir_beneath(root, dir);
	struct dirent *de;
	int rc = NNS_OK;

	if (!d)
		return NNS_OK;
	while (!rc && (de = readdir(d)) != NULL) {
		int dv, k = classify(de->d_name, &dv);
		char *p;

		if (k < 0 || dv != dev || (tag && (k > K_POINT || !tagged(de->d_name, tag))))
			continue;
		if (!(p = str_printf("%s/%s", dir, de->d_name)) || vec_push(&nm->v[k], p)) {
			free(p);
			rc = NNS_ENOMEM;
		}
	}
	closedir(d);
	for (int k = 0; k < K_N; k++)
		if (nm->v[k].n > 1)
			qsort(nm->v[k].v, nm->v[k].n, sizeof(char *), str_cmp);
	return rc;
}

static int list(struct names *nm, const struct fs_root *root, const char *dir, int dev)
{
	return list_tag(nm, root, dir, dev, NULL);
}

/* MindInsight's FrameworkParser also reads <raw root>/container/<dev>/data/
 * Framework.host.*.<dev>.<job id>.slice_*, the raw root being the job
 * directory's parent and the job id its name (test_framework_parser.py:
 * JOB2's files sit in container/0/data): that directory into out and the
 * job id into *job; 0, or -1 when dir has no usable name. */
static int container_dir(const char *dir, int dev, char *out, size_t n, const char **job)
{
	char parent[FS_PATH_MAX];
	const char *slash = strrchr(dir, '/'), *name = slash ? slash + 1 : dir;

	*job = name;
	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -1;
	if (slash)
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - dir), dir);
	else
		snprintf(parent, sizeof(parent), ".");
	return snprintf(out, n, "%s/container/%d/data", parent[0] ? parent : "/", dev) >= (int)n
		   ? -1
		   : 0;
}

/* The framework files of job dir in its container directory. */
static int list_container(struct names *nm, const struct fs_root *root, const char *dir, int dev)
{
	char sub[FS_PATH_MAX + 48];
	const char *job;

	if (container_dir(dir, dev, sub, sizeof(sub), &job))
		return NNS_OK;
	return list_tag(nm, root, sub, dev, job);
}

/* No framework file anywhere MindInsight looks: one warning naming the
 * places and the file names searched (the other inputs are still read). */
static int warn_no_framework(struct ms_raw *r, const char *dir, int dev)
{
	char box[FS_PATH_MAX + 48];
	const char *job;

	if (container_dir(dir, dev, box, sizeof(box), &job))
		snprintf(box, sizeof(box), "%s", "(no container directory: the job has no name)");
	return ms_raw_warn(
	    r, dir, -1,
	    "no framework files of device %d "
	    "(Framework.host.[vm.]{task_desc_info,graph_desc_info,point}.%d[.<job>]."
	    "slice_<n>) in %s, %s/data or %s (those of job %s): the AI Core executions "
	    "(hwts) cannot be named and are left out; the other files (step trace, "
	    "AI CPU, MindData) are analysed",
	    dev, dev, dir, dir, box, job);
}

static void names_free(struct names *nm)
{
	for (int k = 0; k < K_N; k++) {
		for (size_t i = 0; i < nm->v[k].n; i++)
			free(nm->v[k].v[i]);
		vec_free(&nm->v[k]);
	}
}

/* Reads a whole file; NNS_OK, or a warning and *buf NULL. */
static int slurp(struct ms_raw *r, const struct fs_root *root, const char *path, char **buf,
		 size_t *n)
{
	FILE *f = fs_fopen_beneath(root, path);
	struct stat st;

	*buf = NULL;
	*n = 0;
	if (!f)
		return ms_raw_warn(r, path, -1, "cannot be read: %s", strerror(errno));
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > MS_RAW_FILE_MAX) {
		fclose(f);
		return ms_raw_warn(r, path, -1, "not a regular file of at most %zu bytes: not read",
				   MS_RAW_FILE_MAX);
	}
	if (!(*buf = malloc((size_t)st.st_size + 1))) {
		fclose(f);
		return NNS_ENOMEM;
	}
	*n = fread(*buf, 1, (size_t)st.st_size, f);
	(*buf)[*n] = 0;
	if (ferror(f)) {
		fclose(f);
		free(*buf);
		*buf = NULL;
		return ms_raw_warn(r, path, -1, "read error: not read");
	}
	fclose(f);
	return NNS_OK;
}

/* The files of one kind joined (slices in name order), or NULL. */
static int joined(struct ms_raw *r, const struct fs_root *root, const struct names *nm, int k,
		  struct buf *out, const char **first)
{
	int rc = NNS_OK;

	*first = nm->v[k].n ? nm->v[k].v[0] : NULL;
	for (size_t i = 0; !rc && i < nm->v[k].n; i++) {
		char *b;
		size_t n;

		if ((rc = slurp(r, root, nm->v[k].v[i], &b, &n)) || !b)
			continue;
		if (n && buf_append(out, b, n))
			rc = NNS_ENOMEM;
		free(b);
	}
	return rc;
}

static int keep(struct ms_raw *r, const struct ms_src *s, const char *pre, const char *post,
		struct buf *b)
{
	struct ms_raw_file f;

	if (!b->len)
		return NNS_OK;
	snprintf(f.name, sizeof(f.name), "%s%d%s", pre, s->dev, post);
	f.len = b->len;
	if (!(f.text = buf_take(b)))
		return NNS_ENOMEM;
	if (vec_push(&r->files, f)) {
		free(f.text);
		return NNS_ENOMEM;
	}
	return NNS_OK;
}

/* The point file: "1 <fp op>" and "2 <bp op>" lines. */
static void points(struct ms_raw *r, const char *b, size_t n)
{
	size_t pos = 0;

	while (pos < n) {
		const char *l = b + pos, *nl = memchr(l, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - l) : n - pos;

		if (len && l[len - 1] == '\r')
			len--;
		if (len > 2 && (l[0] == '1' || l[0] == '2') && l[1] == ' ') {
			char *dst = l[0] == '1' ? r->fp_start : r->bp_end;

			if (!dst[0])
				snprintf(dst, sizeof(r->fp_start), "%.*s", (int)(len - 2), l + 2);
		}
		pos += len + (nl ? (size_t)(nl - l) - len + 1 : 0);
		if (!nl)
			break;
	}
}

static int convert(struct ms_raw *r, const struct ms_src *s, struct names *nm)
{
	struct ms_raw_fw fw = {0};
	struct buf in, out, out2, tl, mincc;
	const char *first;
	int rc = NNS_OK;

	buf_init(&in, 0);
	buf_init(&out, 0);
	buf_init(&out2, 0);
	buf_init(&tl, 0);
	buf_init(&mincc, 0);
	for (size_t i = 0; !rc && i < nm->v[K_TASK].n; i++) {
		char *b;
		size_t n;

		if (!(rc = slurp(r, s->root, nm->v[K_TASK].v[i], &b, &n)) && b)
			rc = ms_raw_fw_tasks(&fw, b, n, nm->v[K_TASK].v[i], r);
		free(b);
	}
	if (!rc && (nm->v[K_GRAPH].n || fw.ops.n)) {
		ms_raw_fw_header(&out);
		for (size_t i = 0; !rc && i < nm->v[K_GRAPH].n; i++) {
			const char *p = nm->v[K_GRAPH].v[i], *base = strrchr(p, '/');
			char *b;
			size_t n;

			base = base ? base + 1 : p;
			if (!(rc = slurp(r, s->root, p, &b, &n)) && b)
				rc = ms_raw_fw_graph(&fw, b, n,
						     strncmp(base, "Framework.host.vm.", 18) == 0,
						     p, &out, r);
			free(b);
		}
		rc = rc ? rc : ms_raw_fw_rest(&fw, &out);
		rc = rc ? rc : keep(r, s, "framework_raw_", ".csv", &out);
	}
	if (!rc && nm->v[K_POINT].n && !(rc = joined(r, s->root, nm, K_POINT, &in, &first)))
		points(r, in.p ? in.p : "", in.len);
	buf_reset(&in);
	if (!rc && nm->v[K_TRACE].n && !(rc = joined(r, s->root, nm, K_TRACE, &in, &first)) &&
	    in.len)
		rc = ms_raw_trace((const unsigned char *)in.p, in.len, first, &out, r);
	rc = rc ? rc : keep(r, s, "step_trace_raw_", "_detail_time.csv", &out);
	buf_reset(&in);
	if (!rc && nm->v[K_HWTS].n && !(rc = joined(r, s->root, nm, K_HWTS, &in, &first)) &&
	    in.len) {
		if (!fw.ops.n) {
			/* without any framework file warn_no_framework said it */
			if (nm->v[K_TASK].n || nm->v[K_GRAPH].n || nm->v[K_POINT].n)
				rc = ms_raw_warn(r, first, -1,
						 "no framework task description beside it: its "
						 "operators have no names");
		} else {
			rc = ms_raw_hwts((const unsigned char *)in.p, in.len, first, &fw, &out,
					 &out2, &tl, &mincc, r);
		}
	}
	rc = rc ? rc : keep(r, s, "aicore_intermediate_", "_detail.csv", &out);
	rc = rc ? rc : keep(r, s, "aicore_intermediate_", "_type.csv", &out2);
	rc = rc ? rc : keep(r, s, "output_timeline_data_", ".txt", &tl);
	rc = rc ? rc : keep(r, s, "min_cycle_counter_", ".txt", &mincc);
	buf_reset(&in);
	if (!rc && nm->v[K_AICPU].n && !(rc = joined(r, s->root, nm, K_AICPU, &in, &first)) &&
	    in.len)
		rc = ms_raw_aicpu(in.p, in.len, first, &out, r);
	rc = rc ? rc : keep(r, s, "output_data_preprocess_aicpu_", ".txt", &out);
	ms_raw_fw_release(&fw);
	buf_free(&in);
	buf_free(&out);
	buf_free(&out2);
	buf_free(&tl);
	buf_free(&mincc);
	return rc;
}

int ms_raw_load(struct ms_raw *r, const struct ms_src *s, struct nns_err *err)
{
	struct names job = {0}, data = {0}, box = {0};
	char dir[FS_PATH_MAX], sub[FS_PATH_MAX + 8];
	int rc;

	memset(r, 0, sizeof(*r));
	if (ms_raw_job_dir(s->dir, dir, sizeof(dir)))
		return nns_err_set(err, NNS_ENOTFOUND, "%s: path too long", s->dir);
	snprintf(sub, sizeof(sub), "%s/data", dir);
	rc = list(&job, s->root, dir, s->dev);
	rc = rc ? rc : list(&data, s->root, sub, s->dev);
	for (int k = 0; !rc && k < K_N; k++) {
		if (job.v[k].n)
			continue; /* the job directory's own files first, as upstream */
		job.v[k] = data.v[k];
		memset(&data.v[k], 0, sizeof(data.v[k]));
	}
	if (!rc && !job.v[K_TASK].n && !job.v[K_GRAPH].n &&
	    !(rc = list_container(&box, s->root, dir, s->dev))) {
		for (int k = K_TASK; k <= K_POINT; k++) {
			if (job.v[k].n)
				continue;
			job.v[k] = box.v[k];
			memset(&box.v[k], 0, sizeof(box.v[k]));
		}
	}
	for (int k = 0; !rc && k < K_N; k++)
		r->inputs += (int)job.v[k].n;
	if (!rc && !r->inputs)
		rc = NNS_ENOTFOUND;
	if (!rc && !job.v[K_TASK].n && !job.v[K_GRAPH].n && !job.v[K_POINT].n)
		rc = warn_no_framework(r, dir, s->dev);
	if (!rc)
		rc = convert(r, s, &job);
	names_free(&job);
	names_free(&data);
	names_free(&box);
	if (rc == NNS_ENOMEM) {
		ms_raw_release(r);
		return nns_err_set(err, rc, "%s: out of memory", s->dir);
	}
	if (rc == NNS_ENOTFOUND)
		return nns_err_set(err, rc, "%s: no raw profiling files of device %d", dir, s->dev);
	return rc;
}

const struct ms_raw_file *ms_raw_get(const struct ms_raw *r, const char *name)
{
	for (size_t i = 0; r && i < r->files.n; i++)
		if (strcmp(r->files.v[i].name, name) == 0)
			return &r->files.v[i];
	return NULL;
}

void ms_raw_release(struct ms_raw *r)
{
	for (size_t i = 0; i < r->files.n; i++)
		free(r->files.v[i].text);
	vec_free(&r->files);
	for (size_t i = 0; i < r->warnings.n; i++)
		free(r->warnings.v[i]);
	vec_free(&r->warnings);
	memset(r, 0, sizeof(*r));
}
