/*
 * nccl_profiler_abi.h - the NCCL profiler plugin ABI, versions 1 to 6: the
 * ncclProfiler_vN structs of function pointers NCCL looks up in the
 * library named by NCCL_PROFILER_PLUGIN, and the event descriptors it
 * hands to them. nccl_prof.c, nccl_prof_abi.c and tests/e2e/nccl_harness.c, which plays NCCL's
 * part, include it.
 *
 * Origin: the layouts are those of NVIDIA/nccl's plugin headers,
 * src/include/plugin/nccl_profiler.h and src/include/plugin/profiler/
 * profiler_v1.h ... profiler_v6.h (the copies plugins are told to carry are
 * ext-profiler/example/nccl/profiler*.h, err.h, common.h), as of NCCL
 * 2.29; NCCL 2.28.9 (the libnccl.so.2 of CUDA 13.0 here) looks up
 * ncclProfiler_v5, then v4, v3, v2, v1; 2.29 looks up v6 first. Those
 * headers are Copyright NVIDIA
 * CORPORATION, under NCCL's license (BSD-3-Clause in the 2.2x releases,
 * Apache-2.0 in later trees; see NCCL's LICENSE.txt). This file declares
 * the same binary layout under names of our own where it could (the
 * exported symbol names, the event type bits, the state values and the
 * field order must stay as NCCL has them); only what nnscope reads is
 * commented.
 *
 * Differences between versions that matter here:
 *   v1 (NCCL 2.23): func, datatype, algo, proto are small enums (the
 *      tables in nccl_prof_abi.c), coll has commHash and name;
 *   v2 (2.24): they become strings ("AllReduce", "ncclFloat32", "RING",
 *      "SIMPLE"); coll keeps commHash and gains trafficBytes;
 *   v3 (2.25): trafficBytes gone; KernelCh events (channelId);
 *   v4 (2.27): init gets commName, commHash, nNodes, nranks, rank, logfn;
 *      coll loses name/commHash and has nChannels; KernelCh has the GPU
 *      start time (pTimer) and its stop comes as the state
 *      NCCL_PROF_STATE_KERNELCH_STOP with the GPU stop time;
 *   v5 (2.28): type is 64 bits wide; init gets the communicator id first;
 *      GroupApi/CollApi/P2pApi/KernelLaunch events; coll and p2p end with
 *      parentGroup;
 *   v6 (2.29): v5's descriptor with three more union members for the
 *      copy-engine (CE) collectives NCCL runs without a kernel: CeColl
 *      (func, count, datatype, root, seqNumber, syncStrategy ...), CeSync,
 *      CeBatch; they are only started and stopped (no recordEventState).
 *      Init, state values and state arguments are v5's. (NCCL's later
 *      trees add a kernelStep member to this union; being a union member it
 *      moves no other field.)
 *
 * The GPU timer ring (v4+): NCCL's kernel stamps %globaltimer (GPU ns)
 * into a per-channel ring in host memory (workStarted/workCompleted, one
 * {counter, timestamp} slot per work item) when it begins and ends a
 * task's work on a channel; NCCL's proxy (2.26-2.28) or profiler thread
 * (later) polls the ring and passes those stamps as kernelCh.pTimer of the
 * KernelCh start and of the KernelChStop state just before the stop.
 */
#ifndef NNS_COLLECTOR_NCCL_PROFILER_ABI_H
#define NNS_COLLECTOR_NCCL_PROFILER_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ncclResult_t: plugin calls return ncclSuccess; init may fail, which
 * disables the plugin. */
typedef int nccl_result_t;
enum { NCCL_PROF_SUCCESS = 0, NCCL_PROF_INTERNAL_ERROR = 3, NCCL_PROF_INVALID_ARGUMENT = 4 };

/* ncclDebugLogger_t (level is an enum, passed as an int) */
typedef void (*nccl_logger_t)(int level, unsigned long flags, const char *file, int line,
			      const char *fmt, ...);

/* Event type bits: the descriptor's type and the activation mask. */
enum {
	NCCL_PROF_GROUP = 1 << 0,
	NCCL_PROF_COLL = 1 << 1, /* a collective task, on the enqueuing thread */
	NCCL_PROF_P2P = 1 << 2,	 /* a send or a receive task */
	NCCL_PROF_PROXY_OP = 1 << 3,
	NCCL_PROF_PROXY_STEP = 1 << 4,
	NCCL_PROF_PROXY_CTRL = 1 << 5,
	NCCL_PROF_KERNEL_CH = 1 << 6, /* v3+: the kernel's work on one channel */
	NCCL_PROF_NET_PLUGIN = 1 << 7,
	NCCL_PROF_GROUP_API = 1 << 8, /* v5+ */
	NCCL_PROF_COLL_API = 1 << 9,
	NCCL_PROF_P2P_API = 1 << 10,
	NCCL_PROF_KERNEL_LAUNCH = 1 << 11,
	NCCL_PROF_CE_COLL = 1 << 12, /* v6+: a copy-engine collective */
	NCCL_PROF_CE_SYNC = 1 << 13,
	NCCL_PROF_CE_BATCH = 1 << 14
};

/* ncclProfilerEventState_t values nnscope looks at (an int-sized enum; 23,
 * 24 are the v5 group API states, 25-30 v6's CE states, which NCCL's v6
 * header lists though CE events get no recordEventState). */
typedef int nccl_prof_state_t;
enum { NCCL_PROF_STATE_KERNELCH_STOP = 22 };

/* ---- v1 ---------------------------------------------------------------- */

struct nccl_prof_descr_v1 {
	uint8_t type;
	void *parentObj;
	int rank;
	union {
		struct {
			const char *name;
			uint64_t commHash;
			uint64_t seqNumber;
			uint8_t func; /* enum, nccl_prof_abi.c */
			const void *sendBuff;
			void *recvBuff;
			size_t count;
			int root;
			uint8_t datatype; /* enum */
			uint32_t op;
			size_t trafficBytes;
			uint8_t nMaxChannels;
			uint8_t nWarps;
			uint8_t algo;  /* enum */
			uint8_t proto; /* enum */
			int isCollnet;
			int isNvls;
		} coll;
		struct {
			const char *name;
			uint64_t commHash;
			uint8_t func;
			void *buff;
			uint8_t datatype;
			size_t count;
			int peer;
		} p2p;
		struct {
			pid_t pid;
			uint8_t channelId;
			int peer, nSteps, chunkSize, isSend;
		} proxyOp;
		struct {
			int step;
		} proxyStep;
	};
};

/* v1 to v3 state arguments (only passed through, never read) */
union nccl_prof_state_args_v1 {
	struct {
		size_t transSize;
		int steps;
	} proxyOp;
	struct {
		int appendedProxyOps;
	} proxyCtrl;
};

struct nccl_profiler_v1 {
	const char *name;
	nccl_result_t (*init)(void **context, int *eActivationMask);
	nccl_result_t (*startEvent)(void *context, void **eHandle,
				    struct nccl_prof_descr_v1 *eDescr);
	nccl_result_t (*stopEvent)(void *eHandle);
	nccl_result_t (*recordEventState)(void *eHandle, nccl_prof_state_t eState,
					  union nccl_prof_state_args_v1 *eStateArgs);
	nccl_result_t (*finalize)(void *context);
};

/* ---- v2 ---------------------------------------------------------------- */

struct nccl_prof_descr_v2 {
	uint8_t type;
	void *parentObj;
	int rank;
	union {
		struct {
			const char *name;
			uint64_t commHash;
			uint64_t seqNumber;
			const char *func;
			const void *sendBuff;
			void *recvBuff;
			size_t count;
			int root;
			const char *datatype;
			size_t trafficBytes;
			uint8_t nMaxChannels;
			uint8_t nWarps;
			const char *algo;
			const char *proto;
		} coll;
		struct {
			const char *name;
			uint64_t commHash;
			const char *func;
			void *buff;
			const char *datatype;
			size_t count;
			int peer;
		} p2p;
		struct {
			pid_t pid;
			uint8_t channelId;
			int peer, nSteps, chunkSize, isSend;
		} proxyOp;
		struct {
			int step;
		} proxyStep;
	};
};

struct nccl_profiler_v2 {
	const char *name;
	nccl_result_t (*init)(void **context, int *eActivationMask);
	nccl_result_t (*startEvent)(void *context, void **eHandle,
				    struct nccl_prof_descr_v2 *eDescr);
	nccl_result_t (*stopEvent)(void *eHandle);
	nccl_result_t (*recordEventState)(void *eHandle, nccl_prof_state_t eState,
					  union nccl_prof_state_args_v1 *eStateArgs);
	nccl_result_t (*finalize)(void *context);
};

/* ---- v3 ---------------------------------------------------------------- */

struct nccl_prof_descr_v3 {
	uint8_t type;
	void *parentObj;
	int rank;
	union {
		struct {
			const char *name;
			uint64_t commHash;
			uint64_t seqNumber;
			const char *func;
			const void *sendBuff;
			void *recvBuff;
			size_t count;
			int root;
			const char *datatype;
			uint8_t nMaxChannels;
			uint8_t nWarps;
			const char *algo;
			const char *proto;
		} coll;
		struct {
			const char *name;
			uint64_t commHash;
			const char *func;
			void *buff;
			const char *datatype;
			size_t count;
			int peer;
		} p2p;
		struct {
			pid_t pid;
			uint8_t channelId;
			int peer, nSteps, chunkSize, isSend;
		} proxyOp;
		struct {
			int step;
		} proxyStep;
		struct {
			uint8_t channelId;
		} kernelCh;
		struct {
			int64_t id;
			void *data;
		} netPlugin;
	};
};

struct nccl_profiler_v3 {
	const char *name;
	nccl_result_t (*init)(void **context, int *eActivationMask);
	nccl_result_t (*startEvent)(void *context, void **eHandle,
				    struct nccl_prof_descr_v3 *eDescr);
	nccl_result_t (*stopEvent)(void *eHandle);
	nccl_result_t (*recordEventState)(void *eHandle, nccl_prof_state_t eState,
					  union nccl_prof_state_args_v1 *eStateArgs);
	nccl_result_t (*finalize)(void *context);
};

/* ---- v4 ---------------------------------------------------------------- */

struct nccl_prof_descr_v4 {
	uint8_t type;
	void *parentObj;
	int rank;
	union {
		struct {
			uint64_t seqNumber;
			const char *func;
			const void *sendBuff;
			void *recvBuff;
			size_t count;
			int root;
			const char *datatype;
			uint8_t nChannels;
			uint8_t nWarps;
			const char *algo;
			const char *proto;
		} coll;
		struct {
			const char *func;
			void *buff;
			const char *datatype;
			size_t count;
			int peer;
			uint8_t nChannels;
		} p2p;
		struct {
			pid_t pid;
			uint8_t channelId;
			int peer, nSteps, chunkSize, isSend;
		} proxyOp;
		struct {
			int step;
		} proxyStep;
		struct {
			uint8_t channelId;
			uint64_t pTimer; /* GPU globaltimer at the start */
		} kernelCh;
		struct {
			int64_t id;
			void *data;
		} netPlugin;
	};
};

/* v4 and v5 state arguments: kernelCh.pTimer with KERNELCH_STOP */
union nccl_prof_state_args_v4 {
	struct {
		size_t transSize;
	} proxyStep;
	struct {
		int appendedProxyOps;
	} proxyCtrl;
	struct {
		void *data;
	} netPlugin;
	struct {
		uint64_t pTimer; /* GPU globaltimer at the stop */
	} kernelCh;
};

struct nccl_profiler_v4 {
	const char *name;
	nccl_result_t (*init)(void **context, int *eActivationMask, const char *commName,
			      uint64_t commHash, int nNodes, int nranks, int rank,
			      nccl_logger_t logfn);
	nccl_result_t (*startEvent)(void *context, void **eHandle,
				    struct nccl_prof_descr_v4 *eDescr);
	nccl_result_t (*stopEvent)(void *eHandle);
	nccl_result_t (*recordEventState)(void *eHandle, nccl_prof_state_t eState,
					  union nccl_prof_state_args_v4 *eStateArgs);
	nccl_result_t (*finalize)(void *context);
};

/* ---- v5 ---------------------------------------------------------------- */

struct nccl_prof_descr_v5 {
	uint64_t type;
	void *parentObj;
	int rank;
	union {
		struct {
			bool graphCaptured;
			int groupDepth;
		} groupApi;
		struct {
			const char *func;
			size_t count;
			const char *datatype;
			int root;
			void *stream;
			bool graphCaptured;
		} collApi;
		struct {
			const char *func;
			size_t count;
			const char *datatype;
			void *stream;
			bool graphCaptured;
		} p2pApi;
		struct {
			void *stream;
		} kernelLaunch;
		struct {
			uint64_t seqNumber;
			const char *func;
			const void *sendBuff;
			void *recvBuff;
			size_t count;
			int root;
			const char *datatype;
			uint8_t nChannels;
			uint8_t nWarps;
			const char *algo;
			const char *proto;
			void *parentGroup;
		} coll;
		struct {
			const char *func;
			void *buff;
			const char *datatype;
			size_t count;
			int peer;
			uint8_t nChannels;
			void *parentGroup;
		} p2p;
		struct {
			pid_t pid;
			uint8_t channelId;
			int peer, nSteps, chunkSize, isSend;
		} proxyOp;
		struct {
			int step;
		} proxyStep;
		struct {
			uint8_t channelId;
			uint64_t pTimer;
		} kernelCh;
		struct {
			int64_t id;
			void *data;
		} netPlugin;
	};
};

struct nccl_profiler_v5 {
	const char *name;
	nccl_result_t (*init)(void **context, uint64_t commId, int *eActivationMask,
			      const char *commName, int nNodes, int nranks, int rank,
			      nccl_logger_t logfn);
	nccl_result_t (*startEvent)(void *context, void **eHandle,
				    struct nccl_prof_descr_v5 *eDescr);
	nccl_result_t (*stopEvent)(void *eHandle);
	nccl_result_t (*recordEventState)(void *eHandle, nccl_prof_state_t eState,
					  union nccl_prof_state_args_v4 *eStateArgs);
	nccl_result_t (*finalize)(void *context);
};

/* ---- v6 ---------------------------------------------------------------- */

struct nccl_prof_descr_v6 {
	uint64_t type;
	void *parentObj;
	int rank;
	union {
		struct {
			bool graphCaptured;
			int groupDepth;
		} groupApi;
		struct {
			const char *func;
			size_t count;
			const char *datatype;
			int root;
			void *stream;
			bool graphCaptured;
		} collApi;
		struct {
			const char *func;
			size_t count;
			const char *datatype;
			void *stream;
			bool graphCaptured;
		} p2pApi;
		struct {
			void *stream;
		} kernelLaunch;
		struct {
			uint64_t seqNumber;
			const char *func;
			const void *sendBuff;
			void *recvBuff;
			size_t count;
			int root;
			const char *datatype;
			uint8_t nChannels;
			uint8_t nWarps;
			const char *algo;
			const char *proto;
			void *parentGroup;
		} coll;
		struct {
			const char *func;
			void *buff;
			const char *datatype;
			size_t count;
			int peer;
			uint8_t nChannels;
			void *parentGroup;
		} p2p;
		struct {
			pid_t pid;
			uint8_t channelId;
			int peer, nSteps, chunkSize, isSend;
		} proxyOp;
		struct {
			int step;
		} proxyStep;
		struct {
			uint8_t channelId;
			uint64_t pTimer;
		} kernelCh;
		struct {
			int64_t id;
			void *data;
		} netPlugin;
		struct { /* CeColl: a collective done by copy engines */
			uint64_t seqNumber;
			const char *func;
			const void *sendBuff;
			void *recvBuff;
			size_t count;
			int root;
			const char *datatype;
			const char *syncStrategy; /* "MC" (NVLS multicast) or "UC" */
			bool intraBatchSync;
			uint32_t batchSize;
			uint32_t numBatches;
			uint32_t ceSeqNum;
			void *stream;
		} ceColl;
		struct {
			bool isComplete;
			int nRanks;
		} ceCollSync;
		struct {
			int numOps;
			size_t totalBytes;
			bool useIntraSync;
		} ceCollBatch;
	};
};

/* v6 takes v5's init, state values and state arguments */
struct nccl_profiler_v6 {
	const char *name;
	nccl_result_t (*init)(void **context, uint64_t commId, int *eActivationMask,
			      const char *commName, int nNodes, int nranks, int rank,
			      nccl_logger_t logfn);
	nccl_result_t (*startEvent)(void *context, void **eHandle,
				    struct nccl_prof_descr_v6 *eDescr);
	nccl_result_t (*stopEvent)(void *eHandle);
	nccl_result_t (*recordEventState)(void *eHandle, nccl_prof_state_t eState,
					  union nccl_prof_state_args_v4 *eStateArgs);
	nccl_result_t (*finalize)(void *context);
};

#endif
