/*
 * run_file.c - what one file of a logdir is, for discovery (run.c): the
 * worker and span its name gives (tb_plugin's *.pt.trace.json[.gz] and
 * nnscope's *.nnst naming, run.h's run_match_name/run_match_nnst), and
 * whether its content is a trace (a JSON object with "traceEvents", a
 * Chrome array of events, a .nnst with its magic, a MindSpore per-device
 * file), with the reason when it is not.
 */
#include "importers/run.h"
#include "importers/run_int.h"
#include "importers/ms_load.h"
#include "importers/nnst.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define SNIFF_CHUNK 65536
#define SNIFF_MAX ((long)16 << 20) /* bytes of an object searched for "traceEvents" */

static const char *const TB_EXT[] = {".pt.trace.json", ".pt.trace.json.gz"};

static int ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && memcmp(s + n - k, suf, k) == 0;
}

static void copy_trunc(char *dst, size_t size, const char *s, size_t n)
{
	if (!size)
		return;
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* Splits name[0..stem) into (.*?)(\.\d+)? as worker and suffix. */
static void split_suffix(const char *name, size_t stem, char *worker, size_t wsize, char *suffix,
			 size_t ssize);

int run_match_nnst(const char *name, char *worker, size_t wsize, char *suffix, size_t ssize)
{
	size_t n = strlen(name);

	if (!ends_with(name, n, ".nnst") || n <= 5)
		return 0;
	split_suffix(name, n - 5, worker, wsize, suffix, ssize);
	return 1;
}

int run_match_name(const char *name, char *worker, size_t wsize, char *suffix, size_t ssize)
{
	size_t n = strlen(name), stem = 0;
	int ok = 0;

	for (size_t i = 0; i < 2; i++)
		if (ends_with(name, n, TB_EXT[i])) {
			stem = n - strlen(TB_EXT[i]);
			ok = 1;
		}
	if (!ok)
		return 0;
	split_suffix(name, stem, worker, wsize, suffix, ssize);
	return 1;
}

static void split_suffix(const char *name, size_t stem, char *worker, size_t wsize, char *suffix,
			 size_t ssize)
{
	size_t d;

	/* (.*?)(\.\d+)? on name[0..stem): the optional group takes the last
	 * ".<digits>" when the stem ends with one */
	/* (a worker that would be empty or end in '.', as "....1074", keeps
	 * the whole stem and has no span) */
	d = stem;
	while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
		d--;
	if (d < stem && d > 1 && name[d - 1] == '.' && name[d - 2] != '.') {
		copy_trunc(worker, wsize, name, d - 1);
		copy_trunc(suffix, ssize, name + d, stem - d);
	} else {
		copy_trunc(worker, wsize, name, stem);
		copy_trunc(suffix, ssize, "", 0);
	}
}

char *run_strip_ext(const char *base)
{
	static const char *const ext[] = {".pt.trace.json.gz", ".pt.trace.json", ".json.gz",
					  ".json", ".gz"};
	size_t n = strlen(base);

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (ends_with(base, n, ext[i]) && n > strlen(ext[i])) {
			n -= strlen(ext[i]);
			break;
		}
	return strndup(base, n);
}

/* Is the *.json[.gz] file at path a Chrome/Kineto trace, by its content
 * (gzip or not)? A JSON object with a "traceEvents" key within its first
 * SNIFF_MAX bytes, or a JSON array whose first element is an object with
 * "ph" (Chrome's array format, MindSpore's timeline_display files).
 * Returns 1, or 0 with the reason in why. */
static int sniff_json(const struct fs_root *fsr, const char *path, char *why, size_t wsize)
{
	char *buf = malloc(SNIFF_CHUNK);
	const char *p, *end;
	long total = 0;
	int n, rc = 0, e, fd;
	gzFile g = NULL;

	if (!buf) {
		snprintf(why, wsize, "out of memory");
		return 0;
	}
	fd = fs_open_beneath(fsr, path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0 || !(g = gzdopen(fd, "rb"))) {
		e = errno;
		if (fd >= 0)
			close(fd);
		if (fs_refused(fsr, e))
			fs_why(why, wsize, fsr, e);
		else
			snprintf(why, wsize, "cannot open: %s", strerror(e));
		goto out;
	}
	n = gzread(g, buf, SNIFF_CHUNK);
	if (n < 0) {
		snprintf(why, wsize, "cannot read: %s", gzerror(g, &e));
		goto out;
	}
	p = buf;
	end = buf + n;
	if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p == end) {
		snprintf(why, wsize, "%s", n ? "only whitespace: not a trace" : "empty file");
		goto out;
	}
	if (*p == '[') {
		for (p++; p < end && isspace((unsigned char)*p); p++)
			;
		if (p < end && *p == ']')
			snprintf(why, wsize, "no events: the JSON array is empty");
		else if (p < end && *p == '{' && memmem(p, (size_t)(end - p), "\"ph\"", 4))
			rc = 1;
		else if (p < end && *p == '{')
			snprintf(why, wsize,
				 "a JSON array of objects without \"ph\": not trace events");
		else
			snprintf(why, wsize, "a JSON array of non-events: not a trace");
		goto out;
	}
	if (*p != '{') {
		snprintf(why, wsize, "not JSON ('{' or '[' expected at the start)");
		goto out;
	}
	for (;;) {
		if (memmem(buf, (size_t)n, "\"traceEvents\"", 13)) {
			rc = 1;
			break;
		}
		total += n;
		if (n < SNIFF_CHUNK || total >= SNIFF_MAX)
			break;
		/* keep a tail so that a key split across two reads is found */
		memmove(buf, buf + n - 12, 12);
		n = gzread(g, buf + 12, SNIFF_CHUNK - 12);
		if (n <= 0)
			break;
		n += 12;
	}
	if (!rc)
		snprintf(why, wsize, "a JSON object without \"traceEvents\"%s: not a trace",
			 total >= SNIFF_MAX ? " in its first 16 MB" : "");
out:
	if (g)
		gzclose(g);
	free(buf);
	return rc;
}

static int ends_json(const char *name)
{
	size_t n = strlen(name);

	return ends_with(name, n, ".json") || ends_with(name, n, ".json.gz");
}

int run_candidate(const char *name)
{
	int dev, prio;

	return ends_json(name) || ends_with(name, strlen(name), ".nnst") ||
	       ms_match_file(name, &dev, &prio);
}

int run_classify(const struct fs_root *fsr, const char *name, const char *path, char *wbuf,
		 size_t wsize, char *sbuf, size_t ssize, struct found *f, char *why, size_t whysize)
{
	size_t n = strlen(name);
	int dev;

	why[0] = 0;
	sbuf[0] = 0;
	if (ms_match_file(name, &dev, &f->ms_prio)) {
		snprintf(wbuf, wsize, "device_%d", dev);
		return 1;
	}
	f->ms_prio = -1;
	if (ends_with(name, n, ".nnst")) {
		if (!nnst_is_trace_file_in(fsr, path)) {
			snprintf(why, whysize, "not an nnscope trace (no NNSTRACE magic)");
			return 0;
		}
		if (!run_match_nnst(name, wbuf, wsize, sbuf, ssize)) {
			snprintf(wbuf, wsize, "%s", name);
			sbuf[0] = 0;
		}
		f->numeric = 1;
		return 1;
	}
	if (!ends_json(name))
		return 0; /* other files are not candidates */
	/* a file named as tb_plugin names traces is one by intent: when its
	 * content is not, loading it says why (the server's 422), rather than
	 * it vanishing from the run */
	if (!ends_with(name, n, TB_EXT[0]) && !ends_with(name, n, TB_EXT[1]) &&
	    !sniff_json(fsr, path, why, whysize))
		return 0;
	if (!run_match_name(name, wbuf, wsize, sbuf, ssize)) {
		char *w = run_strip_ext(name);

		snprintf(wbuf, wsize, "%s", w ? w : name);
		free(w);
		sbuf[0] = 0;
		f->plain = 1;
	}
	return 1;
}
