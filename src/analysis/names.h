/*
 * names.h - name-based classification of events shared by the analyses:
 * profiler steps, data loader ranges, optimizer, collectives.
 */
#ifndef NNS_ANALYSIS_NAMES_H
#define NNS_ANALYSIS_NAMES_H

#include "model/model.h"

/* "ProfilerStep#N" -> 1 and *num = N (N may be absent: *num = -1). */
int an_is_step_name(const char *name, long long *num);
/* enumerate(DataLoader)#...__next__ or enumerate(DataPipe)#... */
int an_is_dataloader_name(const char *name);
/* nccl:* / gloo:* collectives, PyTorch 1.x and 2.x spellings. Sets *gloo. */
int an_is_comm_name(const char *name, int *gloo);
int an_is_optimizer_name(const char *name);

/* Name classes, computed once per distinct name (an_name_flags). */
enum {
	AN_NAME_STEP = 1,	/* ProfilerStep#N */
	AN_NAME_DATALOADER = 2, /* an_is_dataloader_name */
	AN_NAME_COMM = 4,	/* nccl:* / gloo:* */
	/* 8: free (kernel classes are the model's, model_class_of) */
	AN_NAME_OPTIMIZER = 16,	 /* Optimizer.* */
	AN_NAME_DP = 32,	 /* DataParallel.forward */
	AN_NAME_DDP = 64,	 /* DistributedDataParallel.forward */
	AN_NAME_DL_PREFIX = 128, /* enumerate(DataLoader)#... (any suffix) */
	AN_NAME_TC_OP = 256	 /* tensor-core eligible operator (an_tc_op_eligible) */
};

struct an_profile;
/* Flags of string id `name`, memoised in the profile (built on first use). */
unsigned an_name_flags(struct an_profile *p, uint32_t name);
/* Fills the profile's name memos (an_name_flags, an_tc_kernel_id) for the
 * name of every event, so that passes running side by side only read them:
 * 0 or NNS_ENOMEM (the memos then stay unbuilt and the passes classify
 * each name as they go). Runs before the first pass (profile.c). */
int an_names_prepare(struct an_profile *p);

/* Host-side "CPU" kinds that tb_plugin counts in CPU Exec (python, operator,
 * user annotation; not python_function, not GPU-side annotations). */
static inline int an_kind_is_cpu_range(int k)
{
	return k == MK_CPU_OP || k == MK_USER_ANNOTATION || k == MK_PYTHON;
}
/* Those kinds as model.kinds bits (a walk for them is skipped when none is
 * present). */
#define AN_KB_CPU_RANGE (MODEL_KB(MK_CPU_OP) | MODEL_KB(MK_USER_ANNOTATION) | MODEL_KB(MK_PYTHON))
/* Operators and user annotations, the kinds whose names mark steps, data
 * loading and collectives (an_name_flags), as model.kinds bits. */
#define AN_KB_CPU_NAMED (MODEL_KB(MK_CPU_OP) | MODEL_KB(MK_USER_ANNOTATION))

#endif
