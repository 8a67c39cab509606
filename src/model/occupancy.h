/*
 * occupancy.h - blocks per SM and estimated achieved occupancy of a kernel
 * launch, computed as libkineto computes the "blocks per SM" and "est.
 * achieved occupancy %" it prints (DeviceProperties.cpp kernelOccupancy,
 * which calls cudaOccMaxActiveBlocksPerMultiprocessor of CUDA's header-only
 * cuda_occupancy.h with partitioned global caching off, the default shared
 * memory limit and carveout, no block barriers). Pure functions, no CUDA.
 */
#ifndef NNS_MODEL_OCCUPANCY_H
#define NNS_MODEL_OCCUPANCY_H

#include "model/model.h"

#include <stdint.h>

/* The device limits the calculator reads (cudaOccDeviceProp). */
struct occ_device {
	int major, minor;
	int num_sms;
	int max_threads_per_block;
	int max_threads_per_sm;
	int regs_per_block;
	int regs_per_sm;
	int warp_size;
	int64_t shared_mem_per_block;	       /* default per-block limit (48 KiB) */
	int64_t shared_mem_per_sm;	       /* sharedMemPerMultiprocessor */
	int64_t reserved_shared_mem_per_block; /* 1 KiB from compute capability 8.0 */
};

/* The limits of a model device row; what deviceProperties and the .nnst
 * DEVICE record do not carry is the value every supported GPU has:
 * registers per block min(registers per SM, 65536), 48 KiB of shared memory
 * per block, 1 KiB reserved per block from compute capability 8.0. */
void occ_device_from_model(struct occ_device *d, const struct model_device *md);

/* cudaOccMaxActiveBlocksPerMultiprocessor: blocks of block_size threads
 * that fit on one SM at once (0: the launch cannot run), or -1 when the
 * device or the input is not one the calculator knows (libkineto then
 * prints no occupancy). */
int occ_max_active_blocks(const struct occ_device *d, int regs_per_thread, int64_t static_smem,
			  int64_t dynamic_smem, int64_t block_size);

/* libkineto's blocksPerSm: grid blocks (a 32-bit product, as CUPTI's
 * fields multiply) over the number of SMs; -1 when num_sms <= 0. */
float occ_blocks_per_sm(uint32_t gx, uint32_t gy, uint32_t gz, int num_sms);

/* libkineto's kernelOccupancy: min(blocks_per_sm, active blocks) x block
 * size / max threads per SM, a fraction; -1 when it cannot be computed. */
float occ_achieved(const struct occ_device *d, int regs_per_thread, int64_t static_smem,
		   int64_t dynamic_smem, uint32_t bx, uint32_t by, uint32_t bz,
		   float blocks_per_sm);

/* The percentage libkineto prints: (int)(0.5 + occupancy x 100); -1 when
 * the occupancy could not be computed (libkineto would print -99). */
int occ_percent(float occupancy);

#endif
