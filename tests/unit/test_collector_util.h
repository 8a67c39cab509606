/*
 * test_collector_util.h - helpers for the collector's unit tests (owner:
 * the collector): read a .nnst file back with the format reader
 * (nnst_reader.c) into plain arrays, find the trace a profiler wrote, and
 * make/remove temporary directories. Header-only (static functions), so
 * each test_collector*.c stays a single translation unit.
 */
#ifndef NNS_TEST_COLLECTOR_UTIL_H
#define NNS_TEST_COLLECTOR_UTIL_H

#include "format/nnst.h"
#include "format/nnst_writer.h"

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TT_MAX_THREADS 256
#define TT_FN static __attribute__((unused))

struct tt_trace {
	struct nnst_header hdr;
	int ok;	       /* opened and read to a clean end of file */
	int has_end;   /* END chunk seen */
	int truncated; /* the reader stopped at a damaged or incomplete chunk */
	size_t chunks, clocks, strings_defined;
	char **str; /* id -> string (NULL if undefined) */
	size_t nstr;
	struct nnst_event *ev[TT_MAX_THREADS]; /* per thread index, in file order */
	size_t nev[TT_MAX_THREADS], capev[TT_MAX_THREADS];
	int64_t tid[TT_MAX_THREADS];
	int thread_seen[TT_MAX_THREADS];
	uint64_t lost[TT_MAX_THREADS + 1]; /* [TT_MAX_THREADS] = process */
	size_t samples[4];		   /* by kind */
	char meta[64][2][256];		   /* last 64 records, key/value */
	size_t nmeta;
	int thread_before_events; /* every EVENTS chunk followed its THREAD record */
	int strings_before_use;	  /* every name id was defined before use */
};

TT_FN uint32_t tt_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

TT_FN void tt_free(struct tt_trace *t)
{
	for (size_t i = 0; i < t->nstr; i++)
		free(t->str[i]);
	free(t->str);
	for (int i = 0; i < TT_MAX_THREADS; i++)
		free(t->ev[i]);
	memset(t, 0, sizeof(*t));
}

TT_FN void tt_meta_add(struct tt_trace *t, const uint8_t *k, uint32_t kl, const uint8_t *v,
		       uint32_t vl)
{
	size_t i = t->nmeta < 64 ? t->nmeta++ : 63;

	snprintf(t->meta[i][0], 256, "%.*s", (int)kl, (const char *)k);
	snprintf(t->meta[i][1], 256, "%.*s", (int)vl, (const char *)v);
}

TT_FN const char *tt_meta(const struct tt_trace *t, const char *key)
{
	for (size_t i = t->nmeta; i-- > 0;)
		if (strcmp(t->meta[i][0], key) == 0)
			return t->meta[i][1];
	return NULL;
}

/* Reads path; returns 0 when the file could be opened (t->ok says whether
 * it was read to the end without damage). */
TT_FN int tt_load(struct tt_trace *t, const char *path)
{
	struct nnst_reader *r;
	char err[256];
	uint32_t type, len;
	const uint8_t *p;
	int rc;

	memset(t, 0, sizeof(*t));
	t->thread_before_events = t->strings_before_use = 1;
	if (nnst_reader_open(&r, path, err, sizeof(err))) {
		fprintf(stderr, "tt_load %s: %s\n", path, err);
		return -1;
	}
	t->hdr = *nnst_reader_header(r);
	while ((rc = nnst_reader_next(r, &type, &p, &len, err, sizeof(err))) == 1) {
		t->chunks++;
		switch (type) {
		case NNST_CHUNK_STRINGS:
			for (uint32_t o = 0; o + 8 <= len;) {
				uint32_t id = tt_u32(p + o), l = tt_u32(p + o + 4);

				if (id >= t->nstr) {
					size_t n = id + 1024;

					t->str = realloc(t->str, n * sizeof(*t->str));
					memset(t->str + t->nstr, 0,
					       (n - t->nstr) * sizeof(*t->str));
					t->nstr = n;
				}
				free(t->str[id]);
				t->str[id] = strndup((const char *)p + o + 8, l);
				t->strings_defined++;
				o += 8 + l;
			}
			break;
		case NNST_CHUNK_THREAD:
			for (uint32_t o = 0; o + 16 <= len;) {
				uint32_t idx = tt_u32(p + o), nl = tt_u32(p + o + 12);
				int64_t tid;

				memcpy(&tid, p + o + 4, 8);
				if (idx < TT_MAX_THREADS) {
					t->tid[idx] = tid;
					t->thread_seen[idx] = 1;
				}
				o += 16 + nl;
			}
			break;
		case NNST_CHUNK_EVENTS: {
			uint32_t idx = tt_u32(p), n = tt_u32(p + 4);

			if (idx >= TT_MAX_THREADS || len != 8 + 32u * n)
				break;
			if (!t->thread_seen[idx])
				t->thread_before_events = 0;
			if (t->nev[idx] + n > t->capev[idx]) {
				t->capev[idx] = (t->nev[idx] + n) * 2;
				t->ev[idx] =
				    realloc(t->ev[idx], t->capev[idx] * sizeof(struct nnst_event));
			}
			memcpy(t->ev[idx] + t->nev[idx], p + 8, 32u * n);
			for (uint32_t i = 0; i < n; i++) {
				uint32_t name = t->ev[idx][t->nev[idx] + i].name;

				if (name && (name >= t->nstr || !t->str[name]))
					t->strings_before_use = 0;
			}
			t->nev[idx] += n;
			break;
		}
		case NNST_CHUNK_CLOCK:
			t->clocks += len / sizeof(struct nnst_clock);
			break;
		case NNST_CHUNK_META:
			for (uint32_t o = 0; o + 4 <= len;) {
				uint32_t kl = tt_u32(p + o), vl = tt_u32(p + o + 4 + kl);

				tt_meta_add(t, p + o + 4, kl, p + o + 8 + kl, vl);
				o += 8 + kl + vl;
			}
			break;
		case NNST_CHUNK_SAMPLES:
			for (uint32_t o = 0; o + 64 <= len; o += 64) {
				uint32_t kind = tt_u32(p + o + 16);

				if (kind < 4)
					t->samples[kind]++;
			}
			break;
		case NNST_CHUNK_LOST: {
			uint32_t idx = tt_u32(p);
			uint64_t v;

			memcpy(&v, p + 4, 8);
			t->lost[idx < TT_MAX_THREADS ? idx : TT_MAX_THREADS] = v;
			break;
		}
		case NNST_CHUNK_END:
			t->has_end = 1;
			break;
		}
	}
	t->ok = rc == 0;
	t->truncated = rc == NNS_ETRUNC;
	nnst_reader_close(r);
	return 0;
}

TT_FN size_t tt_count(const struct tt_trace *t, uint8_t type, int with_flags, uint8_t flags)
{
	size_t n = 0;

	for (int i = 0; i < TT_MAX_THREADS; i++)
		for (size_t k = 0; k < t->nev[i]; k++)
			if (t->ev[i][k].type == type && (!with_flags || t->ev[i][k].flags == flags))
				n++;
	return n;
}

TT_FN uint64_t tt_lost_total(const struct tt_trace *t)
{
	uint64_t n = 0;

	for (int i = 0; i <= TT_MAX_THREADS; i++)
		n += t->lost[i];
	return n;
}

/* The .nnst files in dir: up to max paths, returns how many. */
TT_FN int tt_list(const char *dir, char paths[][512], int max)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		size_t l = strlen(de->d_name);

		if (l > 5 && strcmp(de->d_name + l - 5, ".nnst") == 0)
			snprintf(paths[n++], 512, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	return n;
}

TT_FN int tt_rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

TT_FN void tt_rmrf(const char *dir)
{
	nftw(dir, tt_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh temporary directory in dst ("/tmp/nnscope-coll-XXXXXX"). */
TT_FN void tt_tmpdir(char *dst, size_t size)
{
	snprintf(dst, size, "/tmp/nnscope-coll-XXXXXX");
	if (!mkdtemp(dst))
		dst[0] = '\0';
}

#endif
