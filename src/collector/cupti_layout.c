/*
 * cupti_layout.c - compile-time proof that the offsets of cupti_abi.h are
 * those of every CUPTI record version the decoder may be handed (CUDA 13's
 * cupti_activity.h and cupti_activity_deprecated.h).
 * Built with the CUDA headers when the Makefile finds them (CUDA_INC,
 * default /usr/local/cuda/include: -DNNS_HAVE_CUPTI_H); without them it is
 * empty and the offsets stand as documented in cupti_abi.h.
 */
#include "collector/cupti_abi.h"

#ifdef NNS_HAVE_CUPTI_H
#include <cupti.h>
#include <stddef.h>

#define AT(T, f, off) _Static_assert(offsetof(T, f) == (off), #T "." #f " moved")

#define KERNEL(T)                                                                                  \
	AT(T, kind, 0);                                                                            \
	AT(T, registersPerThread, NNS_KO_REGS);                                                    \
	AT(T, start, NNS_KO_START);                                                                \
	AT(T, end, NNS_KO_END);                                                                    \
	AT(T, deviceId, NNS_KO_DEVICE);                                                            \
	AT(T, contextId, NNS_KO_CONTEXT);                                                          \
	AT(T, streamId, NNS_KO_STREAM);                                                            \
	AT(T, gridX, NNS_KO_GRID);                                                                 \
	AT(T, gridY, NNS_KO_GRID + 4);                                                             \
	AT(T, gridZ, NNS_KO_GRID + 8);                                                             \
	AT(T, blockX, NNS_KO_BLOCK);                                                               \
	AT(T, blockY, NNS_KO_BLOCK + 4);                                                           \
	AT(T, blockZ, NNS_KO_BLOCK + 8);                                                           \
	AT(T, staticSharedMemory, NNS_KO_SSMEM);                                                   \
	AT(T, dynamicSharedMemory, NNS_KO_DSMEM);                                                  \
	AT(T, correlationId, NNS_KO_CORR);                                                         \
	AT(T, name, NNS_KO_NAME);                                                                  \
	_Static_assert(sizeof(((T *)0)->registersPerThread) == 2, #T ".registersPerThread size")
#define KERNEL_GRAPH(T)                                                                            \
	KERNEL(T);                                                                                 \
	AT(T, graphId, NNS_KO_GRAPH);                                                              \
	_Static_assert(sizeof(T) >= NNS_K_MIN_SIZE, #T " size")

KERNEL(CUpti_ActivityKernel4);
KERNEL_GRAPH(CUpti_ActivityKernel5);
KERNEL_GRAPH(CUpti_ActivityKernel6);
KERNEL_GRAPH(CUpti_ActivityKernel7);
KERNEL_GRAPH(CUpti_ActivityKernel8);
KERNEL_GRAPH(CUpti_ActivityKernel9);
KERNEL_GRAPH(CUpti_ActivityKernel10);
_Static_assert(sizeof(CUpti_ActivityKernel10) == 216, "Kernel10 size");

#define MEMCPY(T, corr)                                                                            \
	AT(T, copyKind, NNS_MO_COPYKIND);                                                          \
	AT(T, srcKind, NNS_MO_COPYKIND + 1);                                                       \
	AT(T, dstKind, NNS_MO_COPYKIND + 2);                                                       \
	AT(T, bytes, NNS_MO_BYTES);                                                                \
	AT(T, start, NNS_MO_START);                                                                \
	AT(T, end, NNS_MO_END);                                                                    \
	AT(T, deviceId, NNS_MO_DEVICE);                                                            \
	AT(T, contextId, NNS_MO_CONTEXT);                                                          \
	AT(T, streamId, NNS_MO_STREAM);                                                            \
	AT(T, correlationId, corr)
MEMCPY(CUpti_ActivityMemcpy3, NNS_MO_CORR);
MEMCPY(CUpti_ActivityMemcpy4, NNS_MO_CORR);
MEMCPY(CUpti_ActivityMemcpy5, NNS_MO_CORR);
MEMCPY(CUpti_ActivityMemcpy6, NNS_MO_CORR);
MEMCPY(CUpti_ActivityMemcpyPtoP2, NNS_MO_P2P_CORR);
MEMCPY(CUpti_ActivityMemcpyPtoP3, NNS_MO_P2P_CORR);
MEMCPY(CUpti_ActivityMemcpyPtoP4, NNS_MO_P2P_CORR);
_Static_assert(sizeof(CUpti_ActivityMemcpy6) == 96 && sizeof(CUpti_ActivityMemcpyPtoP4) == 96,
	       "Memcpy6 size");

#define MEMSET(T)                                                                                  \
	AT(T, value, NNS_SO_VALUE);                                                                \
	AT(T, bytes, NNS_SO_BYTES);                                                                \
	AT(T, start, NNS_SO_START);                                                                \
	AT(T, end, NNS_SO_END);                                                                    \
	AT(T, deviceId, NNS_SO_DEVICE);                                                            \
	AT(T, contextId, NNS_SO_CONTEXT);                                                          \
	AT(T, streamId, NNS_SO_STREAM);                                                            \
	AT(T, correlationId, NNS_SO_CORR)
MEMSET(CUpti_ActivityMemset2);
MEMSET(CUpti_ActivityMemset3);
MEMSET(CUpti_ActivityMemset4);
_Static_assert(sizeof(CUpti_ActivityMemset4) == 88, "Memset4 size");

AT(CUpti_ActivityAPI, cbid, NNS_AO_CBID);
AT(CUpti_ActivityAPI, start, NNS_AO_START);
AT(CUpti_ActivityAPI, end, NNS_AO_END);
AT(CUpti_ActivityAPI, processId, NNS_AO_PID);
AT(CUpti_ActivityAPI, threadId, NNS_AO_TID);
AT(CUpti_ActivityAPI, correlationId, NNS_AO_CORR);
_Static_assert(sizeof(CUpti_ActivityAPI) == 40, "API size");

#define SYNC(T)                                                                                    \
	AT(T, type, NNS_YO_TYPE);                                                                  \
	AT(T, start, NNS_YO_START);                                                                \
	AT(T, end, NNS_YO_END);                                                                    \
	AT(T, correlationId, NNS_YO_CORR);                                                         \
	AT(T, contextId, NNS_YO_CONTEXT);                                                          \
	AT(T, streamId, NNS_YO_STREAM);                                                            \
	AT(T, cudaEventId, NNS_YO_EVENT)
SYNC(CUpti_ActivitySynchronization);
SYNC(CUpti_ActivitySynchronization2);
_Static_assert(sizeof(CUpti_ActivitySynchronization2) == 56, "Synchronization2 size");

#define MEMORY(T)                                                                                  \
	AT(T, memoryOperationType, NNS_YMO_OP);                                                    \
	AT(T, correlationId, NNS_YMO_CORR);                                                        \
	AT(T, address, NNS_YMO_ADDR);                                                              \
	AT(T, bytes, NNS_YMO_BYTES);                                                               \
	AT(T, timestamp, NNS_YMO_TIME);                                                            \
	AT(T, deviceId, NNS_YMO_DEVICE);                                                           \
	AT(T, streamId, NNS_YMO_STREAM)
MEMORY(CUpti_ActivityMemory2);
MEMORY(CUpti_ActivityMemory3);
MEMORY(CUpti_ActivityMemory4);
_Static_assert(sizeof(CUpti_ActivityMemory4) == 128, "Memory4 size");

AT(CUpti_ActivityExternalCorrelation, externalKind, NNS_XO_KIND);
AT(CUpti_ActivityExternalCorrelation, externalId, NNS_XO_ID);
AT(CUpti_ActivityExternalCorrelation, correlationId, NNS_XO_CORR);
_Static_assert(sizeof(CUpti_ActivityExternalCorrelation) == 24, "ExternalCorrelation size");

#define EQ(a, b) ((int)(a) == (int)(b))
_Static_assert(EQ(CUPTI_ACTIVITY_KIND_MEMCPY, NNS_CK_MEMCPY) &&
		   EQ(CUPTI_ACTIVITY_KIND_MEMSET, NNS_CK_MEMSET) &&
		   EQ(CUPTI_ACTIVITY_KIND_DRIVER, NNS_CK_DRIVER) &&
		   EQ(CUPTI_ACTIVITY_KIND_RUNTIME, NNS_CK_RUNTIME) &&
		   EQ(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, NNS_CK_CONCURRENT_KERNEL) &&
		   EQ(CUPTI_ACTIVITY_KIND_MEMCPY2, NNS_CK_MEMCPY2) &&
		   EQ(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, NNS_CK_SYNCHRONIZATION) &&
		   EQ(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, NNS_CK_EXTERNAL_CORRELATION) &&
		   EQ(CUPTI_ACTIVITY_KIND_MEMORY2, NNS_CK_MEMORY2),
	       "activity kinds");
_Static_assert(EQ(CUPTI_ERROR_MAX_LIMIT_REACHED, NNS_CUPTI_ERROR_MAX_LIMIT_REACHED) &&
		   EQ(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
		      NNS_CUPTI_ERROR_MULTIPLE_SUBSCRIBERS) &&
		   EQ(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, NNS_CUPTI_FLUSH_FORCED) &&
		   EQ(CUPTI_CB_DOMAIN_DRIVER_API, NNS_CUPTI_DOMAIN_DRIVER) &&
		   EQ(CUPTI_CB_DOMAIN_RUNTIME_API, NNS_CUPTI_DOMAIN_RUNTIME) &&
		   EQ(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION,
		      NNS_CUPTI_MEMOP_ALLOCATION) &&
		   EQ(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, NNS_CUPTI_MEMOP_RELEASE),
	       "CUPTI constants");
_Static_assert(EQ(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, NNS_CU_MAX_THREADS_PER_BLOCK) &&
		   EQ(CU_DEVICE_ATTRIBUTE_WARP_SIZE, NNS_CU_WARP_SIZE) &&
		   EQ(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, NNS_CU_SM_COUNT) &&
		   EQ(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
		      NNS_CU_MAX_THREADS_PER_SM) &&
		   EQ(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, NNS_CU_CC_MAJOR) &&
		   EQ(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, NNS_CU_CC_MINOR) &&
		   EQ(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
		      NNS_CU_SMEM_PER_SM) &&
		   EQ(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, NNS_CU_REGS_PER_SM) &&
		   EQ(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, NNS_CU_MAX_BLOCKS_PER_SM),
	       "CUDA device attributes");
#endif

/* ISO C wants a declaration in every translation unit */
typedef int nns_cupti_layout_checked;
