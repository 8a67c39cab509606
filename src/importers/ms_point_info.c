/*
 * ms_point_info.c - the step-trace points MindSpore chose for a device:
 * step_trace_point_info_<dev>.json, or the older step_trace_point_info.json
 * of the whole directory: {"fp_start": "<op full name>", "bp_end": "..."}
 * (reference mindinsight.md, "Step trace"). Declared in ms_st_table.h.
 */
#include "importers/ms_st_table.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The JSON string value of "key" in buf (escapes \" \\ \/ \n \t and
 * \u00XX decoded; other \u escapes become '?'), into out. 0, or -1 when
 * the key or a well-formed string value is missing. */
static int json_str(const char *buf, const char *key, char *out, size_t n)
{
	char pat[64];
	const char *p;
	size_t k = 0;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	p = strstr(buf, pat);
	if (!p)
		return -1;
	p += strlen(pat);
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p++ != ':')
		return -1;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p++ != '"')
		return -1;
	for (; *p && *p != '"'; p++) {
		char ch = *p;

		if (ch == '\\') {
			p++;
			if (!*p)
				return -1;
			ch = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
			if (*p == 'u') {
				unsigned v = 0;

				if (sscanf(p + 1, "%4x", &v) != 1 || strlen(p + 1) < 4)
					return -1;
				ch = v < 0x80 ? (char)v : '?';
				p += 4;
			}
		}
		if (k + 1 < n)
			out[k++] = ch;
	}
	if (*p != '"')
		return -1;
	out[k] = '\0';
	return 0;
}

int ms_point_info_load(const struct ms_src *s, char *fp, char *bp, size_t n, struct nns_err *err)
{
	char path[4096], buf[65536];
	FILE *f = NULL;
	size_t got;

	fp[0] = bp[0] = '\0';
	if (ms_src_path(s, "step_trace_point_info_", ".json", path, sizeof(path)) == 0)
		f = fopen(path, "rb");
	if (!f) {
		snprintf(path, sizeof(path), "%s/step_trace_point_info.json", s->dir);
		f = fopen(path, "rb");
	}
	if (!f)
		return nns_err_set(err, errno == ENOENT ? NNS_ENOTFOUND : NNS_EIO, "%s: %s", path,
				   strerror(errno));
	got = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[got] = '\0';
	if (json_str(buf, "fp_start", fp, n) || json_str(buf, "bp_end", bp, n)) {
		fp[0] = bp[0] = '\0';
		return nns_err_set(err, NNS_EFORMAT,
				   "%s: no \"fp_start\" and \"bp_end\" strings (or over 64 KB)",
				   path);
	}
	return NNS_OK;
}
