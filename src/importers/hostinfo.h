/*
 * hostinfo.h - reader of MindSpore host_info CSVs (SPEC §1.1, reference
 * mindinsight.md "host_info CSV"):
 *   tid,pid,parent_pid,module_name,event,stage,level,start_end,custom_info,
 *   memory_usage(kB),time_stamp(us)
 * into model.host (the analysis is src/analysis/hostinfo.c).
 *
 * Columns are found by their header names, so reordered or extra columns
 * are fine; module_name, event, stage, start_end and time_stamp(us) are
 * required. Fields follow RFC 4180: custom_info is quoted when it holds a
 * comma, quotes are doubled, and a quoted field may hold line breaks. Rows
 * that cannot be read (a missing or non-numeric required field, a field
 * over 64 KiB) are skipped and counted in diag.events_skipped with the
 * first one described in diag.first_problem (if still empty).
 *
 * pid_filter >= 0 keeps only the rows of that process or its children
 * (pid or parent_pid equal to it); -1 keeps all.
 * Returns NNS_OK, NNS_EIO (cannot read), NNS_EFORMAT (no header with the
 * required columns) or NNS_ENOMEM (also over HOSTINFO_MAX_ROWS rows).
 * hostinfo_load_file opens path beneath m->root when the model has one
 * (the server's logdir): a CSV that resolves outside is refused (NNS_EIO).
 */
#ifndef NNS_IMPORTERS_HOSTINFO_H
#define NNS_IMPORTERS_HOSTINFO_H

#include "model/model.h"

#define HOSTINFO_MAX_ROWS 20000000

int hostinfo_load_file(const char *path, struct model *m, int64_t pid_filter, struct nns_err *err);
int hostinfo_load_buffer(const char *buf, size_t len, const char *name, struct model *m,
			 int64_t pid_filter, struct nns_err *err);

/* "host_info_<N>.csv" -> N; -1 for any other name. */
int64_t hostinfo_file_rank(const char *base_name);

#endif
