/*
 * nnst.h - importer for nnscope's own traces (.nnst, src/format/nnst.h,
 * docs/FORMAT.md) into the model.
 *
 * What each record becomes:
 *   PUSH/POP      complete events on the thread, nested as pushed; the kind
 *                 comes from the name: qualified names "ns::op" ("aten::mm",
 *                 "mlp::linear1"), "Optimizer.*" and
 *                 "enumerate(DataLoader)#*" / "enumerate(DataPipe)#*" ->
 *                 MK_CPU_OP (as PyTorch's own profiler records them: the
 *                 operator view lists the first kind), "nn.Module: *" ->
 *                 MK_PYTHON_FUNCTION with a Python module id (one stable
 *                 id per module name) so the module view works, everything
 *                 else (ProfilerStep#N included) -> MK_USER_ANNOTATION. A
 *                 MARK "input_dims:<text>" inside a range gives the range
 *                 its Input Dims (nnscope.torch record_shapes); a MARK
 *                 "kind:cpu_op" inside a range makes an annotation an
 *                 MK_CPU_OP (nnscope.torch's autograd nodes such as
 *                 "ConvolutionBackward0", named as torch names them). A POP with
 *                 nothing open is skipped (diag.ranges_unmatched: normal at
 *                 window edges).
 *   BEGIN/END     cross-thread ranges paired by handle (an END in an
 *                 earlier chunk than its BEGIN, from another thread, too:
 *                 ENDs are read in the first pass), as user annotations
 *                 on a pseudo-thread "async" of the process (they may
 *                 overlap the thread's own ranges, which would break their
 *                 nesting).
 *   START/STEP/STOP  windows and steps (docs/FORMAT.md "Windows and
 *                 steps"): unless the trace has ProfilerStep#N ranges of its
 *                 own, START(a = N) and STEP(a = N) open a user annotation
 *                 "ProfilerStep#N" on their thread that lasts until the next
 *                 STEP, STOP or the end of the trace; the last step of a
 *                 window is dropped when its thread recorded nothing in it
 *                 (the moment between the last nns_step() and the stop). A
 *                 range still open at a STOP ends there. START and STOP are
 *                 also instants ("nnscope start" / "nnscope stop").
 *   warmup        events flagged NNST_EVF_WARMUP (a schedule's warmup
 *                 steps) are dropped; their STEP marks only end a step.
 *   MARK          model.instants.
 *   COUNTER       model.counters (value = the double in a).
 *   FLOW          model.flows: a = id, b = phase ('s', 'f', 't'); the name
 *                 "fwdbwd" / "ac2g" selects the flow kind.
 *   ALLOC/FREE    model.mems (device -1 -> CPU, else GPU<device>), with the
 *                 totals of the MEMTOTAL that follows on the thread.
 *   QUEUE         model.queues (a = size, b = capacity).
 *   SAMPLES       model.samples (thread samples on their thread's row).
 *   META          model.meta; "rank" / "world_size" also set dist_rank /
 *                 dist_world_size; "thread.<tid>.name" names a thread.
 *   LOST          diag.events_lost (the largest count per thread, summed).
 * Ranges still open at the end of a trace with no STOP after them (a
 * crashed run) are closed at the thread's last timestamp and counted
 * (diag.ranges_closed). Unknown chunk and event types are skipped (events
 * counted in diag.events_skipped), so newer writers stay readable. Model
 * times are clamped to +-2^61 ns so that analyses never overflow.
 *
 * Time: raw timestamps go through the file's clock calibration points
 * (linear interpolation) to CLOCK_MONOTONIC ns, then to CLOCK_REALTIME ns
 * with the header's start_realtime_ns - start_mono_ns (model.mono_offset_ns),
 * so ranks on different hosts line up.
 *
 * Returns NNS_OK; NNS_ETRUNC when the file stops inside a chunk, a chunk is
 * damaged, or the trace was never closed (no END chunk): err says where,
 * everything before is kept, diag.truncated is set and the model is
 * finalized and usable; other errors (not an nnst file, a newer format,
 * I/O, memory) leave the model releasable but unspecified.
 * The caller owns the model (model_init before, model_release after).
 */
#ifndef NNS_IMPORTERS_NNST_H
#define NNS_IMPORTERS_NNST_H

#include "model/model.h"

int nnst_load_file(const char *path, struct model *m, struct nns_err *err);
/* The same with the file opened beneath root (common/fs.h; NULL: as
 * given): a file that resolves outside is refused ("<path>: refused:
 * resolves outside <root>", NNS_EIO). The file is opened once; both passes
 * read that descriptor. */
/* The class of a PUSH range's or MARK's name, as the importer reads it
 * (above): NNST_NC_MODULE "nn.Module: *", NNST_NC_STEP "ProfilerStep#*",
 * NNST_NC_DIMS / NNST_NC_TYPE "input_dims:" / "input_type:" marks,
 * NNST_NC_KINDOP the mark "kind:cpu_op", NNST_NC_OP an operator name,
 * else NNST_NC_ANNOT (a user annotation). */
enum {
	NNST_NC_ANNOT = 1,
	NNST_NC_OP,
	NNST_NC_MODULE,
	NNST_NC_STEP,
	NNST_NC_DIMS,
	NNST_NC_KINDOP,
	NNST_NC_TYPE
};
int nnst_name_class(const char *name);

struct fs_root;
int nnst_load_file_in(const struct fs_root *root, const char *path, struct model *m,
		      struct nns_err *err);

/* 1 if the file at path starts with the .nnst magic, else 0. */
int nnst_is_trace_file(const char *path);
int nnst_is_trace_file_in(const struct fs_root *root, const char *path);

#endif
