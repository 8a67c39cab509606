/*
 * occupancy.c - the kernel occupancy estimate of occupancy.h: a C port of
 * the parts of CUDA's cuda_occupancy.h (cudaOccMaxActiveBlocksPerMultiprocessor)
 * that libkineto's settings reach: limits from warps, registers (allocated
 * per warp with the architecture's granularity, per sub-partition),
 * shared memory (allocation granularity, the default carveout rounded to
 * the architecture's configurable sizes) and the architecture's maximum
 * resident blocks. Partitioned global caching is off and no block
 * barriers or virtual resources are declared, as in libkineto, so those
 * limits never apply.
 */
#include "occupancy.h"

#include <limits.h>

#define KIB 1024

static int imin(int a, int b)
{
	return b < a ? b : a;
}

static int64_t round_up(int64_t x, int64_t g)
{
	return (x + g - 1) / g * g;
}

void occ_device_from_model(struct occ_device *d, const struct model_device *md)
{
	d->major = md->major;
	d->minor = md->minor;
	d->num_sms = md->num_sms;
	d->max_threads_per_block = md->max_threads_per_block;
	d->max_threads_per_sm = md->max_threads_per_sm;
	d->regs_per_sm = md->regs_per_sm;
	d->regs_per_block = md->regs_per_sm < 65536 ? md->regs_per_sm : 65536;
	d->warp_size = md->warp_size;
	d->shared_mem_per_block = 48 * KIB;
	d->shared_mem_per_sm = md->shared_mem_per_sm;
	d->reserved_shared_mem_per_block = md->major >= 8 ? KIB : 0;
}

/* ---- per-architecture constants (0: unknown device) ---------------------- */

static int smem_granularity(const struct occ_device *d)
{
	switch (d->major) {
	case 3:
	case 5:
	case 6:
	case 7:
		return 256;
	case 8:
	case 9:
	case 10:
	case 11:
	case 12:
		return 128;
	}
	return 0;
}

static int reg_max_per_thread(const struct occ_device *d)
{
	if (d->major == 3 || d->major == 5 || d->major == 6)
		return 255;
	return d->major >= 7 && d->major <= 12 ? 256 : 0;
}

static int reg_granularity(const struct occ_device *d)
{
	return d->major == 3 || (d->major >= 5 && d->major <= 12) ? 256 : 0;
}

static int sub_partitions(const struct occ_device *d)
{
	if (d->major == 6)
		return d->minor ? 4 : 2;
	return d->major == 3 || d->major == 5 || (d->major >= 7 && d->major <= 12) ? 4 : 0;
}

static int max_blocks_per_sm(const struct occ_device *d)
{
	switch (d->major) {
	case 3:
		return 16;
	case 5:
	case 6:
		return 32;
	case 7:
		return d->minor == 5 ? 16 : 32;
	case 8:
		return d->minor == 0 ? 32 : d->minor == 9 ? 24 : 16;
	case 9:
		return 32;
	case 10:
		return d->minor == 1 ? 24 : 32;
	case 11:
		return d->minor == 0 ? 24 : 32;
	case 12:
		return 24;
	}
	return 0;
}

/* The configurable shared memory sizes (KiB) of Volta and later, ascending;
 * a 0 entry means "0 stays 0". Returns the count, 0 for an unknown device. */
static int smem_sizes(const struct occ_device *d, const int **out)
{
	static const int turing[] = {32, 64};
	static const int volta[] = {0, 8, 16, 32, 64, 96};
	static const int a100[] = {0, 8, 16, 32, 64, 100, 132, 164};
	static const int ga10x[] = {0, 8, 16, 32, 64, 100};
	static const int hopper[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

#define SET(a)                                                                                     \
	do {                                                                                       \
		*out = (a);                                                                        \
		return (int)(sizeof(a) / sizeof((a)[0]));                                          \
	} while (0)
	switch (d->major) {
	case 7:
		if (d->minor == 5)
			SET(turing);
		SET(volta);
	case 8:
		if (d->minor == 0 || d->minor == 7)
			SET(a100);
		SET(ga10x);
	case 9:
		SET(hopper);
	case 10:
	case 11:
		if (d->minor == 0 || d->minor == 1 || d->minor == 3)
			SET(hopper);
		return 0;
	case 12:
		if (d->minor == 0 || d->minor == 1)
			SET(ga10x);
		return 0;
	}
	return 0;
#undef SET
}

/* cudaOccAlignUpShmemSizeVoltaPlus: 0 on success, -1 when the size is
 * above the largest configuration or the device unknown. */
static int align_smem(const struct occ_device *d, int64_t *size)
{
	const int *s;
	int n = smem_sizes(d, &s);

	for (int i = 0; i < n; i++) {
		if (s[i] == 0 ? *size == 0 : *size <= (int64_t)s[i] * KIB) {
			*size = (int64_t)s[i] * KIB;
			return 0;
		}
	}
	return -1;
}

/* ---- limits ----------------------------------------------------------------- */

static int regs_limit(const struct occ_device *d, int regs, int64_t block_size, int *limit)
{
	int gran = reg_granularity(d), maxr = reg_max_per_thread(d), parts = sub_partitions(d);
	int64_t warps, per_warp, per_cta, assumed;

	if (!gran || !maxr || !parts)
		return -1;
	warps = (block_size + d->warp_size - 1) / d->warp_size;
	per_warp = round_up((int64_t)regs * d->warp_size, gran);
	per_cta = per_warp * warps;
	assumed = per_warp * round_up(warps, parts);
	if (d->regs_per_block < assumed || d->regs_per_block < per_cta || regs > maxr) {
		*limit = 0;
	} else if (per_warp > 0) {
		int64_t warps_per_part = (d->regs_per_sm / parts) / per_warp;

		*limit = (int)(warps_per_part * parts / warps);
	} else {
		*limit = INT_MAX;
	}
	return 0;
}

static int smem_limit(const struct occ_device *d, int64_t static_smem, int64_t dynamic_smem,
		      int *limit)
{
	int gran = smem_granularity(d);
	int64_t pref, allocated, per_block, per_sm;

	if (!gran)
		return -1;
	/* the default carveout: all of sharedMemPerMultiprocessor, aligned */
	pref = d->shared_mem_per_sm;
	if (d->major >= 7) {
		if (align_smem(d, &pref))
			return -1;
	} else if (d->major != 3 && d->major != 5 && d->major != 6) {
		return -1;
	}
	allocated = round_up(static_smem + d->reserved_shared_mem_per_block + dynamic_smem, gran);
	if (d->major < 2 || d->major > 12)
		return -1;
	per_block =
	    d->shared_mem_per_block + (d->major >= 8 ? d->reserved_shared_mem_per_block : 0);
	if (allocated > per_block) {
		*limit = 0;
		return 0;
	}
	if (pref >= allocated) {
		per_sm = pref;
	} else if (d->major >= 7) {
		per_sm = allocated;
		if (align_smem(d, &per_sm))
			return -1;
	} else {
		per_sm = d->shared_mem_per_sm;
	}
	*limit = allocated > 0 ? (int)(per_sm / allocated) : INT_MAX;
	return 0;
}

int occ_max_active_blocks(const struct occ_device *d, int regs_per_thread, int64_t static_smem,
			  int64_t dynamic_smem, int64_t block_size)
{
	int regs, warps, blocks, smem;

	if (block_size <= 0 || block_size > INT_MAX || regs_per_thread < 0 || static_smem < 0 ||
	    dynamic_smem < 0 || static_smem > INT_MAX || dynamic_smem > INT_MAX)
		return -1;
	if (d->max_threads_per_block <= 0 || d->max_threads_per_sm <= 0 || d->regs_per_block <= 0 ||
	    d->regs_per_sm <= 0 || d->warp_size <= 0 || d->shared_mem_per_block <= 0 ||
	    d->shared_mem_per_sm <= 0 || d->num_sms <= 0 || d->reserved_shared_mem_per_block < 0)
		return -1;
	if (regs_limit(d, regs_per_thread, block_size, &regs))
		return -1;
	if (d->major == 6 && d->minor == 0 && regs) {
		/* GP100: a launch that GP10x cannot hold does not run either */
		struct occ_device gp10x = *d;
		int r;

		gp10x.minor = 1;
		if (regs_limit(&gp10x, regs_per_thread, block_size, &r))
			return -1;
		if (r == 0)
			regs = 0;
	}
	if (block_size > d->max_threads_per_block)
		warps = 0;
	else
		warps = d->max_threads_per_sm / d->warp_size /
			(int)((block_size + d->warp_size - 1) / d->warp_size);
	blocks = max_blocks_per_sm(d);
	if (!blocks)
		return -1;
	if (smem_limit(d, static_smem, dynamic_smem, &smem))
		return -1;
	return imin(regs, imin(smem, imin(warps, blocks)));
}

float occ_blocks_per_sm(uint32_t gx, uint32_t gy, uint32_t gz, int num_sms)
{
	if (num_sms <= 0)
		return -1.0f;
	return (float)(uint32_t)(gx * gy * gz) / (float)num_sms;
}

float occ_achieved(const struct occ_device *d, int regs_per_thread, int64_t static_smem,
		   int64_t dynamic_smem, uint32_t bx, uint32_t by, uint32_t bz, float blocks_per_sm)
{
	/* libkineto multiplies the three int32 fields */
	int32_t block = (int32_t)(uint32_t)(bx * by * bz);
	int active = occ_max_active_blocks(d, regs_per_thread, static_smem, dynamic_smem, block);

	if (active < 0)
		return -1.0f;
	if ((float)active < blocks_per_sm)
		blocks_per_sm = (float)active;
	return blocks_per_sm * (float)block / (float)d->max_threads_per_sm;
}

int occ_percent(float occupancy)
{
	double v;

	if (!(occupancy >= 0))
		return -1;
	v = 0.5 + (double)occupancy * 100.0;
	return v >= (double)INT_MAX ? INT_MAX : (int)v;
}
