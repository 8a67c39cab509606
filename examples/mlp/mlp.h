/*
 * mlp.h - a two-layer perceptron (in -> hidden, ReLU, -> classes, softmax
 * cross-entropy) trained with plain SGD, every matrix product a
 * cblas_sgemm. Row-major; weights W1 (in x hidden), W2 (hidden x classes).
 *
 * Sub-ranges inside forward/backward ("mlp::linear1", ...) make the
 * example's operator table non-trivial; the caller wraps the calls in the
 * "forward", "backward" and "Optimizer.step#SGD.step" ranges.
 */
#ifndef MLP_MLP_H
#define MLP_MLP_H

#include <stdint.h>

struct mlp {
	int in, hidden, out, batch;
	float *w1, *b1, *w2, *b2;     /* parameters */
	float *gw1, *gb1, *gw2, *gb2; /* gradients */
	float *z1, *a1, *logits;      /* activations (batch rows) */
	float *dlogits, *da1;	      /* backward scratch */
	uint32_t n_fc1, n_relu, n_fc2, n_xent, n_fc2_bw, n_relu_bw, n_fc1_bw;
};

/* 0 on success, -1 when out of memory. */
int mlp_init(struct mlp *m, int in, int hidden, int out, int batch, uint64_t seed);
void mlp_free(struct mlp *m);
/* Forward pass on n <= batch rows; returns the mean loss. *correct gets
 * the number of rows classified right. */
float mlp_forward(struct mlp *m, const float *x, const int *y, int n, int *correct);
/* Gradients of the mean loss of the last forward pass. */
void mlp_backward(struct mlp *m, const float *x, const int *y, int n);
/* Plain SGD: p -= lr * grad. */
void mlp_sgd(struct mlp *m, float lr);

#endif
