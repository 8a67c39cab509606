/*
 * ms_opdetail.h - the op_info and FLOPs columns of MindInsight's "op
 * statistics by op" table (upstream AicoreDetailAnalyser), joined onto the
 * rows of ms_aicore_detail.h without changing that reader:
 *
 *   framework_raw_<dev>.csv   task_id,stream_id,block_dim,full_kernel_name|full_op_name,
 *                             ...,op_info[,graph_id] (two historical layouts; the
 *                             key and op_info columns are found by header name,
 *                             the key falling back to column 4 as upstream's info[3]).
 *                             op_info is a JSON object {"input_0": {"format",
 *                             "data_type", "shape"}, "output_0": ...}; shape is a
 *                             list ([1]) or a string ("32,3,224,224", "" = scalar),
 *                             nnscope keeps it as a list of integers either way.
 *                             When a name repeats, the last row wins (upstream dict).
 *   flops_<dev>.txt           (ms_flops.h) by full name: MFLOPs/GFLOPS cube and
 *                             vector; a legacy file's single FLOPs/FLOPS columns are
 *                             reported as the cube ones (upstream puts the legacy
 *                             columns by position, utilization into "MFLOPs vector").
 *
 * A row whose op is not in flops_<dev>.txt has NAN FLOPs ("-" upstream);
 * one not in framework_raw has no op_info (upstream would fail).
 * Bounds: MS_FW_MAX_ROWS rows, MS_FW_MAX_TENSORS tensors per op,
 * MS_FW_MAX_DIMS dims per shape. Errors NNS_EFORMAT "file:line: why".
 * Ownership: each struct owns its arrays; the _release functions free them.
 */
#ifndef NNS_IMPORTERS_MS_OPDETAIL_H
#define NNS_IMPORTERS_MS_OPDETAIL_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/vec.h"
#include "importers/ms_aicore_detail.h"
#include "importers/ms_flops.h"
#include "importers/ms_src.h"

#define MS_FW_MAX_ROWS 2000000
#define MS_FW_MAX_TENSORS 4096
#define MS_FW_MAX_DIMS 64

struct ms_tensor {
	size_t key, format, dtype; /* offsets in ms_fw.s ("input_0", "DEFAULT", "INT32") */
	size_t dim0;		   /* first dim in ms_fw.dims */
	uint32_t ndim;
	int shape_null; /* shape absent or null */
};

struct ms_opinfo {
	size_t name;	 /* full kernel name, offset in ms_fw.s */
	uint32_t t0, nt; /* tensors [t0, t0 + nt) of ms_fw.t */
	int has;	 /* op_info cell not empty */
	size_t line;
};

struct ms_fw {
	int has; /* framework_raw was read */
	VEC(struct ms_opinfo) ops;
	VEC(uint32_t) by_name;
	VEC(struct ms_tensor) t;
	VEC(int64_t) dims;
	VEC(char) s;
};

int ms_fw_parse(struct ms_fw *fw, const char *buf, size_t n, const char *name, struct nns_err *err);
void ms_fw_release(struct ms_fw *fw);
const struct ms_opinfo *ms_fw_find(const struct ms_fw *fw, const char *full_name);
static inline const char *ms_fw_str(const struct ms_fw *fw, size_t off)
{
	return off < fw->s.n ? fw->s.v + off : "";
}

struct ms_opd_row {
	size_t ad; /* index in the ms_ad rows (same order) */
	double mflops_cube, gflops_cube, mflops_vec, gflops_vec; /* NAN = "-" */
	int64_t info;						 /* index in ms_fw.ops, -1 = none */
};

struct ms_opd {
	int has;	 /* aicore_intermediate_<dev>_detail.csv was read */
	struct ms_ad ad; /* owned when loaded with ms_opd_load */
	struct ms_flops fl;
	struct ms_fw fw;
	VEC(struct ms_opd_row) rows;
};

/* Joins: one row per ad row, in ad's order. ad/fl/fw borrowed (fl, fw may
 * be NULL). NNS_OK or NNS_ENOMEM. */
int ms_opd_join(struct ms_opd *d, const struct ms_ad *ad, const struct ms_flops *fl,
		const struct ms_fw *fw, struct nns_err *err);
/* Reads aicore_intermediate_<dev>_detail.csv, framework_raw_<dev>.csv and
 * flops_<dev>.txt (absent files: no data) and joins them into d (d->has 0
 * when the detail csv is absent). On error d is left empty. */
int ms_opd_load(struct ms_opd *d, const struct ms_src *s, struct nns_err *err);
void ms_opd_release(struct ms_opd *d);

#endif
