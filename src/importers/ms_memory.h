/*
 * ms_memory.h - MindSpore's device memory file memory_usage_<dev>.pb: one
 * protobuf message MemoryProto of MindSpore's memory_profiling.proto
 * (mindspore/ccsrc/profiler/device/{ascend,common}/memory_profiling.proto,
 * package mindspore.profiler), decoded field by field:
 *
 *   MemoryProto    1 graph_mem (GraphMemProto, repeated)  2 total_mem (varint)
 *   GraphMemProto  1 graph_id  2 static_mem (varint)  3 node_mems (NodeMemProto, repeated)
 *                  4 tensor_mems (TensorMemProto, repeated)  5 fp_start  6 bp_end (string)
 *   NodeMemProto   1 node_name (string)  2 node_id (varint)  3 input_tensor_id
 *                  4 output_tensor_id  5 workspace_tensor_id (repeated varint,
 *                  packed or not)
 *   TensorMemProto 1 tensor_id  2 size (varint)  3 type (string)  4 life_start
 *                  5 life_end (varint)  6 life_long (string: LifeLongGraphAll,
 *                  LifeLongGraphStart, LifeLongGraphEnd, LifeLongNone)
 *
 * The ascend proto declares the counts uint64, the common one int64: the
 * same varints; nnscope keeps them as uint64 and refuses a size or static
 * memory that would be negative as int64. Unknown fields (and a known field
 * with another wire type, as protobuf does) are skipped; a field absent is
 * its proto3 default (0, ""). Repeated fields may be interleaved.
 *
 * Why a hand-written reader: four flat messages do not justify a generated
 * code dependency (protoc-c + libprotobuf-c) that the bare-machine build
 * would have to carry; the reader below is ~250 lines with every read
 * bounds-checked.
 *
 * Errors: NNS_EFORMAT "byte N: why" (N = offset in the file of the field or
 * value at fault: truncated varint or length, a length past its message, a
 * group wire type, field number 0, a count over the caps below).
 *
 * Ownership: struct ms_mem_file owns its arrays; ms_mem_file_release frees
 * them.
 */
#ifndef NNS_IMPORTERS_MS_MEMORY_H
#define NNS_IMPORTERS_MS_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/vec.h"
#include "importers/ms_src.h"

#define MS_MEM_MAX_FILE ((size_t)256 << 20) /* bytes of one .pb file */
#define MS_MEM_MAX_GRAPHS 65536
#define MS_MEM_MAX_NODES ((size_t)1 << 22)   /* all graphs together */
#define MS_MEM_MAX_TENSORS ((size_t)1 << 22) /* all graphs together */
#define MS_MEM_MAX_IDS ((size_t)1 << 25)     /* tensor ids of all nodes */

struct ms_mem_node {
	size_t name; /* offset in ms_mem_file.s */
	uint64_t node_id;
	uint32_t in0, nin, out0, nout, ws0, nws; /* ranges of ms_mem_file.ids */
};

struct ms_mem_tensor {
	uint64_t tensor_id, size, life_start, life_end;
	size_t type, life_long; /* offsets in ms_mem_file.s */
};

struct ms_mem_graph {
	int64_t graph_id;
	uint64_t static_mem;
	size_t fp_start, bp_end;   /* offsets in s ("" when absent) */
	uint32_t node0, nnode;	   /* nodes [node0, node0 + nnode) */
	uint32_t tensor0, ntensor; /* tensors [tensor0, tensor0 + ntensor) */
};

struct ms_mem_file {
	uint64_t total_mem;
	VEC(struct ms_mem_graph) graphs;
	VEC(struct ms_mem_node) nodes;
	VEC(struct ms_mem_tensor) tensors;
	VEC(uint64_t) ids;
	VEC(char) s; /* NUL-terminated strings; offset 0 is "" */
};

/* Decodes buf[0..n) into *f (initialised here; released on error). */
int ms_mem_parse(struct ms_mem_file *f, const unsigned char *buf, size_t n, struct nns_err *err);
/* Reads and decodes memory_usage_<dev>.pb of s: NNS_ENOTFOUND when absent;
 * a decoding error names the file ("<path>: byte N: why"). */
int ms_mem_load(struct ms_mem_file *f, const struct ms_src *s, struct nns_err *err);
void ms_mem_file_release(struct ms_mem_file *f);

static inline const char *ms_mem_str(const struct ms_mem_file *f, size_t off)
{
	return off < f->s.n ? f->s.v + off : "";
}

#endif
