// tools/bench/device/bandwidth.c: memory bandwidth of the threads this process may use (taskset): each thread runs an
// Adam-like update over its share of 4 float arrays of 64 Mi values (reads w,g,m,v; writes w,m,v).
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define N (64u << 20)
static float *w, *g, *m, *v; static int T;
static void* run(void* a) { long t = (long)a; size_t b = N / T * t, e = N / T * (t + 1);
  for (size_t i = b; i < e; ++i) { float mi = 0.9f * m[i] + 0.1f * g[i], vi = 0.999f * v[i] + 0.001f * g[i] * g[i];
    m[i] = mi; v[i] = vi; w[i] -= 0.001f * mi / (sqrtf(vi) + 1e-8f); } return 0; }
static double now() { struct timespec s; clock_gettime(CLOCK_MONOTONIC, &s); return s.tv_sec + 1e-9 * s.tv_nsec; }
int main(int c, char** a) { T = c > 1 ? atoi(a[1]) : 2; w = calloc(N, 4); g = calloc(N, 4); m = calloc(N, 4); v = calloc(N, 4);
  for (size_t i = 0; i < N; ++i) g[i] = 1e-3f * (i % 7);
  pthread_t th[64]; double best = 1e9;
  for (int r = 0; r < 5; ++r) { double t0 = now(); for (long t = 0; t < T; ++t) pthread_create(&th[t], 0, run, (void*)t);
    for (int t = 0; t < T; ++t) pthread_join(th[t], 0); double dt = now() - t0; if (dt < best) best = dt; }
  printf("adam-like pass, %d threads: %.1f GB/s (7 x 4 B per value, 28 B x %u values in %.1f ms)\n", T, 28.0 * N / best / 1e9, N, best * 1e3); return 0; }
