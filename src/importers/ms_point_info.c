/*
 * ms_point_info.c - the step-trace points MindSpore chose for a device:
 * step_trace_point_info_<dev>.json, or the older step_trace_point_info.json
 * of the whole directory: {"fp_start": "<op full name>", "bp_end": "..."}
 * (reference mindinsight.md, "Step trace"), read with ms_json.h. Declared in
 * ms_st_table.h.
 */
#include "common/fs.h"
#include "importers/ms_json.h"
#include "importers/ms_st_table.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int ms_point_info_load(const struct ms_src *s, char *fp, char *bp, size_t n, struct nns_err *err)
{
	char path[4096], buf[65536];
	const struct msj_node *f, *b;
	struct msj j;
	FILE *file = NULL;
	size_t got;
	int rc;

	fp[0] = bp[0] = '\0';
	errno = ENOENT;
	if (ms_src_path(s, "step_trace_point_info_", ".json", path, sizeof(path)) == 0)
		file = fs_fopen_beneath(s->root, path);
	if (!file && !fs_refused(s->root, errno)) {
		snprintf(path, sizeof(path), "%s/step_trace_point_info.json", s->dir);
		file = fs_fopen_beneath(s->root, path);
	}
	if (!file)
		return fs_open_error(err, errno == ENOENT ? NNS_ENOTFOUND : NNS_EIO, s->root, path,
				     errno);
	got = fread(buf, 1, sizeof(buf), file);
	fclose(file);
	if (got == sizeof(buf))
		return nns_err_set(err, NNS_EFORMAT, "%s: larger than 64 KB", path);
	memset(&j, 0, sizeof(j));
	if ((rc = msj_parse(&j, buf, got, path, err)))
		return rc;
	f = msj_get(&j, msj_root(&j), "fp_start");
	b = msj_get(&j, msj_root(&j), "bp_end");
	if (f && b && f->type == MSJ_STR && b->type == MSJ_STR) {
		snprintf(fp, n, "%s", msj_str(&j, f));
		snprintf(bp, n, "%s", msj_str(&j, b));
	} else {
		rc = nns_err_set(err, NNS_EFORMAT, "%s: no \"fp_start\" and \"bp_end\" strings",
				 path);
	}
	msj_release(&j);
	return rc;
}
