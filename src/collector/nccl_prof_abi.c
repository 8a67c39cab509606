/*
 * nccl_prof_abi.c - the exported ncclProfiler_v1 ... ncclProfiler_v6
 * structs NCCL looks up (newest first) in the library NCCL_PROFILER_PLUGIN
 * names: thin adapters that turn each version's descriptors into a struct
 * ncp_event for the one implementation in nccl_prof.c. Layouts: nccl_profiler_abi.h (from
 * NVIDIA/nccl's headers).
 *
 * Every entry point accepts NULL pointers and unknown event types (no
 * handle, ncclSuccess); only init can fail (out of memory), which makes
 * NCCL run without the plugin. The six structs are the exported symbols
 * the ABI requires; they hold only function pointers and the name.
 */
#include "collector/collector.h"
#include "collector/nccl_prof.h"
#include "collector/nccl_profiler_abi.h"

#include <stddef.h>
#include <string.h>

/* v6 extends v5's descriptor: the members nnscope reads sit where v5 has
 * them (NCCL's profiler_v6.h: "Extend v5 descriptor with CE-specific
 * fields"), so one fill serves both. */
#define SAME_AT(m)                                                                                 \
	_Static_assert(offsetof(struct nccl_prof_descr_v5, m) ==                                   \
			   offsetof(struct nccl_prof_descr_v6, m),                                 \
		       "v6 moved " #m)
SAME_AT(coll.nChannels);
SAME_AT(coll.proto);
SAME_AT(p2p.nChannels);
SAME_AT(kernelCh.pTimer);
SAME_AT(parentObj);
SAME_AT(rank);

/* ---- v1 enums (NCCL's ncclFunc_t, ncclDataType_t, NCCL_ALGO_*, NCCL_PROTO_*)
 * mapped to the strings v2+ pass, so records look the same whatever the
 * version. */
static const char *const v1_func[] = {"Broadcast", "Reduce",   "AllGather", "ReduceScatter",
				      "AllReduce", "SendRecv", "Send",	    "Recv"};
static const char *const v1_dtype[] = {"ncclInt8",     "ncclUint8",	 "ncclInt32",
				       "ncclUint32",   "ncclInt64",	 "ncclUint64",
				       "ncclFloat16",  "ncclFloat32",	 "ncclFloat64",
				       "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2"};
static const char *const v1_algo[] = {
    "TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"};
static const char *const v1_proto[] = {"LL", "LL128", "SIMPLE"};

#define V1_NAME(tab, i) ((size_t)(i) < sizeof(tab) / sizeof(tab[0]) ? tab[i] : "unknown")

static struct ncp_ctx *ctx_of(void *context)
{
	return (struct ncp_ctx *)context;
}

static nccl_result_t init_common(void **context, int version, int *mask, uint64_t hash, int nranks,
				 int rank)
{
	struct ncp_ctx *c = NULL;

	if (!context)
		return NCCL_PROF_INVALID_ARGUMENT;
	*context = NULL;
	if (ncp_init(&c, version, mask, hash, nranks, rank) != NNS_OK)
		return NCCL_PROF_INTERNAL_ERROR;
	*context = c;
	return NCCL_PROF_SUCCESS;
}

static nccl_result_t stop_any(void *handle)
{
	ncp_stop(handle);
	return NCCL_PROF_SUCCESS;
}

static nccl_result_t record_v1(void *handle, nccl_prof_state_t state,
			       union nccl_prof_state_args_v1 *args)
{
	(void)handle, (void)state, (void)args;
	return NCCL_PROF_SUCCESS;
}

/* v4+: KernelChStop carries the GPU timer at the channel's stop */
static nccl_result_t record_v4(void *handle, nccl_prof_state_t state,
			       union nccl_prof_state_args_v4 *args)
{
	if (state == NCCL_PROF_STATE_KERNELCH_STOP && args)
		ncp_kernel_stop_time(handle, args->kernelCh.pTimer);
	return NCCL_PROF_SUCCESS;
}

static nccl_result_t finalize_any(void *context)
{
	ncp_finalize(ctx_of(context));
	return NCCL_PROF_SUCCESS;
}

static void event_init(struct ncp_event *e, int rank)
{
	memset(e, 0, sizeof(*e));
	e->rank = rank;
}

/* ---- v1 ------------------------------------------------------------------ */

static nccl_result_t init_v1(void **context, int *mask)
{
	return init_common(context, 1, mask, 0, 0, -1);
}

static nccl_result_t start_v1(void *context, void **handle, struct nccl_prof_descr_v1 *d)
{
	struct ncp_event e;

	if (!handle)
		return NCCL_PROF_SUCCESS;
	*handle = NULL;
	if (!d)
		return NCCL_PROF_SUCCESS;
	event_init(&e, d->rank);
	if (d->type == NCCL_PROF_COLL) {
		e.kind = NCP_COLL;
		e.comm_hash = d->coll.commHash;
		e.seq = d->coll.seqNumber;
		e.func = V1_NAME(v1_func, d->coll.func);
		e.dtype = V1_NAME(v1_dtype, d->coll.datatype);
		e.algo = V1_NAME(v1_algo, d->coll.algo);
		e.proto = V1_NAME(v1_proto, d->coll.proto);
		e.count = d->coll.count;
		e.root = d->coll.root;
	} else if (d->type == NCCL_PROF_P2P) {
		e.kind = NCP_P2P;
		e.comm_hash = d->p2p.commHash;
		e.func = V1_NAME(v1_func, d->p2p.func);
		e.dtype = V1_NAME(v1_dtype, d->p2p.datatype);
		e.count = d->p2p.count;
		e.root = d->p2p.peer;
	}
	ncp_start(ctx_of(context), &e, handle);
	return NCCL_PROF_SUCCESS;
}

/* ---- v2 and v3: the same coll/p2p fields up to datatype ------------------- */

static nccl_result_t init_v2(void **context, int *mask)
{
	return init_common(context, 2, mask, 0, 0, -1);
}

static nccl_result_t init_v3(void **context, int *mask)
{
	return init_common(context, 3, mask, 0, 0, -1);
}

#define V23_FILL(e, d)                                                                             \
	do {                                                                                       \
		if ((d)->type == NCCL_PROF_COLL) {                                                 \
			(e).kind = NCP_COLL;                                                       \
			(e).comm_hash = (d)->coll.commHash;                                        \
			(e).seq = (d)->coll.seqNumber;                                             \
			(e).func = (d)->coll.func;                                                 \
			(e).dtype = (d)->coll.datatype;                                            \
			(e).algo = (d)->coll.algo;                                                 \
			(e).proto = (d)->coll.proto;                                               \
			(e).count = (d)->coll.count;                                               \
			(e).root = (d)->coll.root;                                                 \
		} else if ((d)->type == NCCL_PROF_P2P) {                                           \
			(e).kind = NCP_P2P;                                                        \
			(e).comm_hash = (d)->p2p.commHash;                                         \
			(e).func = (d)->p2p.func;                                                  \
			(e).dtype = (d)->p2p.datatype;                                             \
			(e).count = (d)->p2p.count;                                                \
			(e).root = (d)->p2p.peer;                                                  \
		}                                                                                  \
	} while (0)

static nccl_result_t start_v2(void *context, void **handle, struct nccl_prof_descr_v2 *d)
{
	struct ncp_event e;

	if (!handle)
		return NCCL_PROF_SUCCESS;
	*handle = NULL;
	if (!d)
		return NCCL_PROF_SUCCESS;
	event_init(&e, d->rank);
	V23_FILL(e, d);
	ncp_start(ctx_of(context), &e, handle);
	return NCCL_PROF_SUCCESS;
}

/* v3's nMaxChannels is an upper bound, not the count of KernelCh events:
 * nchannels stays 0 (unknown) */
static nccl_result_t start_v3(void *context, void **handle, struct nccl_prof_descr_v3 *d)
{
	struct ncp_event e;

	if (!handle)
		return NCCL_PROF_SUCCESS;
	*handle = NULL;
	if (!d)
		return NCCL_PROF_SUCCESS;
	event_init(&e, d->rank);
	V23_FILL(e, d);
	if (d->type == NCCL_PROF_KERNEL_CH) {
		e.kind = NCP_KCH;
		e.parent = d->parentObj;
	}
	ncp_start(ctx_of(context), &e, handle);
	return NCCL_PROF_SUCCESS;
}

/* ---- v4, v5 and v6: the same coll/p2p/kernelCh fields --------------------- */

static nccl_result_t init_v4(void **context, int *mask, const char *comm_name, uint64_t hash,
			     int nnodes, int nranks, int rank, nccl_logger_t log)
{
	(void)comm_name, (void)nnodes, (void)log;
	return init_common(context, 4, mask, hash, nranks, rank);
}

static nccl_result_t init_v5(void **context, uint64_t comm_id, int *mask, const char *comm_name,
			     int nnodes, int nranks, int rank, nccl_logger_t log)
{
	(void)comm_name, (void)nnodes, (void)log;
	return init_common(context, 5, mask, comm_id, nranks, rank);
}

#define V45_FILL(e, d)                                                                             \
	do {                                                                                       \
		if ((d)->type == NCCL_PROF_COLL) {                                                 \
			(e).kind = NCP_COLL;                                                       \
			(e).seq = (d)->coll.seqNumber;                                             \
			(e).func = (d)->coll.func;                                                 \
			(e).dtype = (d)->coll.datatype;                                            \
			(e).algo = (d)->coll.algo;                                                 \
			(e).proto = (d)->coll.proto;                                               \
			(e).count = (d)->coll.count;                                               \
			(e).root = (d)->coll.root;                                                 \
			(e).nchannels = (d)->coll.nChannels;                                       \
		} else if ((d)->type == NCCL_PROF_P2P) {                                           \
			(e).kind = NCP_P2P;                                                        \
			(e).func = (d)->p2p.func;                                                  \
			(e).dtype = (d)->p2p.datatype;                                             \
			(e).count = (d)->p2p.count;                                                \
			(e).root = (d)->p2p.peer;                                                  \
			(e).nchannels = (d)->p2p.nChannels;                                        \
		} else if ((d)->type == NCCL_PROF_KERNEL_CH) {                                     \
			(e).kind = NCP_KCH;                                                        \
			(e).parent = (d)->parentObj;                                               \
			(e).gpu_ns = (d)->kernelCh.pTimer;                                         \
		}                                                                                  \
	} while (0)

static nccl_result_t start_v4(void *context, void **handle, struct nccl_prof_descr_v4 *d)
{
	struct ncp_event e;

	if (!handle)
		return NCCL_PROF_SUCCESS;
	*handle = NULL;
	if (!d)
		return NCCL_PROF_SUCCESS;
	event_init(&e, d->rank);
	V45_FILL(e, d);
	ncp_start(ctx_of(context), &e, handle);
	return NCCL_PROF_SUCCESS;
}

static nccl_result_t start_v5(void *context, void **handle, struct nccl_prof_descr_v5 *d)
{
	struct ncp_event e;

	if (!handle)
		return NCCL_PROF_SUCCESS;
	*handle = NULL;
	if (!d)
		return NCCL_PROF_SUCCESS;
	event_init(&e, d->rank);
	V45_FILL(e, d);
	ncp_start(ctx_of(context), &e, handle);
	return NCCL_PROF_SUCCESS;
}

/* v6: v5's events, and CeColl (a collective done by copy engines) recorded
 * like a Coll with algorithm "CE" and its sync strategy as the protocol */
static nccl_result_t init_v6(void **context, uint64_t comm_id, int *mask, const char *comm_name,
			     int nnodes, int nranks, int rank, nccl_logger_t log)
{
	(void)comm_name, (void)nnodes, (void)log;
	return init_common(context, 6, mask, comm_id, nranks, rank);
}

static nccl_result_t start_v6(void *context, void **handle, struct nccl_prof_descr_v6 *d)
{
	struct ncp_event e;

	if (!handle)
		return NCCL_PROF_SUCCESS;
	*handle = NULL;
	if (!d)
		return NCCL_PROF_SUCCESS;
	event_init(&e, d->rank);
	V45_FILL(e, d);
	if (d->type == NCCL_PROF_CE_COLL) {
		e.kind = NCP_CE;
		e.seq = d->ceColl.seqNumber;
		e.func = d->ceColl.func;
		e.dtype = d->ceColl.datatype;
		e.algo = "CE";
		e.proto = d->ceColl.syncStrategy;
		e.count = d->ceColl.count;
		e.root = d->ceColl.root;
	}
	ncp_start(ctx_of(context), &e, handle);
	return NCCL_PROF_SUCCESS;
}

/* ---- the exported structs ------------------------------------------------- */

NNS_API struct nccl_profiler_v6 ncclProfiler_v6 = {"nnscope", init_v6,	 start_v6,
						   stop_any,  record_v4, finalize_any};
NNS_API struct nccl_profiler_v5 ncclProfiler_v5 = {"nnscope", init_v5,	 start_v5,
						   stop_any,  record_v4, finalize_any};
NNS_API struct nccl_profiler_v4 ncclProfiler_v4 = {"nnscope", init_v4,	 start_v4,
						   stop_any,  record_v4, finalize_any};
NNS_API struct nccl_profiler_v3 ncclProfiler_v3 = {"nnscope", init_v3,	 start_v3,
						   stop_any,  record_v1, finalize_any};
NNS_API struct nccl_profiler_v2 ncclProfiler_v2 = {"nnscope", init_v2,	 start_v2,
						   stop_any,  record_v1, finalize_any};
NNS_API struct nccl_profiler_v1 ncclProfiler_v1 = {"nnscope", init_v1,	 start_v1,
						   stop_any,  record_v1, finalize_any};
