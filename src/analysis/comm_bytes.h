/*
 * comm_bytes.h - private to comm.c (and its unit test): the size in bytes
 * of an op's inputs from the canonical "Input Dims" and "Input type" texts.
 */
#ifndef NNS_ANALYSIS_COMM_BYTES_H
#define NNS_ANALYSIS_COMM_BYTES_H

#include <stdint.h>

/* Sum over inputs of prod(shape) x dtype size, tb_plugin's sizes (long int
 * 8, float 4, int 4, c10::Half 2, c10::BFloat16 2, unsigned char 1) plus
 * double 8, signed char 1, short int 2, bool 1 and the 8-bit floats; other
 * types count 0. dims like "[[2, 8, 5], []]", types like
 * "['float', 'Int']". A tensor list ("[[[2], [3]]]") counts every tensor.
 * Saturates at INT64_MAX; malformed text counts what was read before it. */
int64_t an_comm_bytes(const char *dims, const char *types);

#endif
