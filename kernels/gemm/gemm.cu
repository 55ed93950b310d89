/* gemm.cu - a tunable single-precision GEMM for NVIDIA GPUs: C = A * B,
 * row-major, any M, N, K.  The last chapter of the seed's story: a block
 * computes a BM x BN tile of C; its warps each a WM x WN warp tile; each
 * thread a TM x TN register tile.  K advances BK at a time through a
 * STAGES-deep ring of shared-memory tiles filled by cp.async (16 bytes,
 * zero fill past the edges), so the next tiles load while this one
 * multiplies.
 *
 * Layouts, chosen so that every shared-memory read is 16 bytes wide and
 * free of bank conflicts (AT picks A's):
 *   AT=0: As[m][k]  A's rows as they are in memory (k contiguous), padded
 *             by 4 floats so that the LY rows a warp reads at once fall in
 *             distinct banks; a thread reads 4 consecutive k of a row, and
 *             multiplies 4 k steps with one set of TM float4;
 *   AT=1: As[k][m]  A transposed (row stride BM + 4), written from
 *             registers: each thread loads its 16-byte chunks of the tile
 *             after k-tile t+1 while tile t multiplies and stores them, 4
 *             floats apart, before the barrier.  A k step then needs
 *             TM / 4 float4 of A and TN / 4 of B (8 registers for 8 x 8),
 *             so the next step's fragments load while this one multiplies
 *             (double-buffered registers), the next k-tile's first ones
 *             while the last step of this one does;
 *   Bs[k][n]  B's rows (n contiguous); a thread reads 4 consecutive n.
 * The 32 lanes of a warp form LY x LX (LY = WM / TM, LX = WN / TN): lane
 * (ty, tx) owns the float4 columns 4 tx + j 4 LX (j < TN / 4) of its warp
 * tile and the rows ty + i LY (AT=0, i < TM) or 4 ty + i4 4 LY + e
 * (AT=1, i4 < TM / 4, e < 4), so lanes of one row share (broadcast) A's
 * values and lanes of one column share B's.
 *
 * Tuning parameters (macros, -DNAME=value from ktune):
 *   BM, BN, BK   the block's tile of C and the depth of a k step;
 *   WM, WN       a warp's tile;  TM, TN  a thread's (TN a multiple of 4);
 *   STAGES       shared-memory stages in flight (2: double buffering);
 *   GM           block rows that sweep the columns together (L2 reuse);
 *   MINB         blocks per multiprocessor the compiler must leave room
 *                for (__launch_bounds__: caps registers per thread);
 *   AT           A's layout in shared memory (above);
 *   SK           0: a block per tile of C; else stream K over SK
 *                multiprocessors (132 on the H100 and H200; below);
 *   NREG         0: registers capped by MINB alone; else at most NREG a
 *                thread (__maxnreg__, MINB then 1): a cap makes ptxas
 *                allocate the unrolled k-tile differently, which moves
 *                the speed of one tiling by a few percent either way
 *                (PERFORMANCE.md), so the tuner, not the author, picks it;
 *   TAIL         with SK: 0 stream K (below); 1 the tail split (tail_split):
 *                the tiles past the whole waves of SK cut in two k-ranges.
 * Launch: block ((BM / WM) (BN / WN) 32), dynamic shared memory STAGES (BM
 * BK + 4 (AT ? BK : BM) + BK BN) 4 bytes; grid (ceil(N / BN), ceil(M /
 * BM)), or with SK the tiles' whole waves of SK plus up to SK blocks
 * that share the rest (TAIL=1: two for each tile of the rest;
 * gemm-cuda.json's GlobalSize).
 *
 * Stream K: a GEMM of 512 tiles on 132 multiprocessors runs 3.88 waves
 * in the time of 4.  With SK the tiles that fill whole waves of SK get a
 * block each; the k-tiles of the remaining ones are cut into S <= SK
 * contiguous ranges of (nearly) equal length, a block each, so the last
 * wave is as short as the work in it.  A block that covers only part of
 * a tile's k-tiles writes its partial sums to its slot of W and counts
 * itself in Wc (a counter per shared tile); the one that counts last adds
 * the others' slots to its own sums, stores the tile and sets the counter
 * back to 0 for the next launch.  No block waits for another, so the
 * result is right whatever the order or number of blocks resident.  W
 * holds 2 SK BM BN floats (a block's first and last range), Wc SK ints,
 * zero before the first launch.
 * Rows whose 4-float chunks are misaligned (K or N not a multiple of 4)
 * are loaded element by element.
 */
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WM
#define WM 32
#endif
#ifndef WN
#define WN 64
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef GM
#define GM 8
#endif
#ifndef MINB
#define MINB 1
#endif
#ifndef AT
#define AT 0
#endif
#ifndef SK
#define SK 0
#endif
#ifndef NREG
#define NREG 0
#endif
#ifndef TAIL
#define TAIL 0
#endif

#define LY (WM / TM)
#define LX (WN / TN)
#define WARPS_N (BN / WN)
#define THREADS ((BM / WM) * WARPS_N * 32)
#if AT
#define AST (BM + 4) /* row stride of As, floats */
#define A_FLOATS (BK * AST)
#else
#define AST (BK + 4)
#define A_FLOATS (BM * AST)
#endif
#define B_FLOATS (BK * BN)

__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    unsigned r;
    asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(r) : "l"(p));
    return r;
}

__device__ __forceinline__ void cp16(float *dst, const float *src, int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)),
                 "l"(src), "r"(bytes));
}

__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n"); }

template <int N> __device__ __forceinline__ void cp_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/* Rows [r0, r0 + BR) x columns [c0, c0 + BC) of a row-major R x C matrix
 * into shared memory of row stride LD, in 4-float chunks. */
template <int BR, int BC, int LD>
__device__ __forceinline__ void load_tile(float *s, const float *g, int R, int C, int r0, int c0,
                                          bool vec)
{
    for (int c = threadIdx.x; c < BR * BC / 4; c += THREADS) {
        int r = c / (BC / 4), cc = (c % (BC / 4)) * 4, gr = r0 + r, gc = c0 + cc;
        float *d = s + r * LD + cc;
        if (vec) {
            bool in = gr < R && gc < C;
            cp16(d, in ? g + (size_t)gr * C + gc : g, in ? 16 : 0);
        } else {
#pragma unroll
            for (int j = 0; j < 4; j++)
                d[j] = gr < R && gc + j < C ? g[(size_t)gr * C + gc + j] : 0.0f;
        }
    }
}

/* The same tile for a block wholly inside the matrix (R >= r0 + BR and
 * C >= c0 + BC, C a multiple of 4): a thread's chunks keep their column
 * and are PER rows apart, so each costs one cp.async and an address add,
 * without bounds tests. */
template <int BR, int BC, int LD>
__device__ __forceinline__ void load_tile_inside(float *s, const float *g, int C, int r0, int c0)
{
    constexpr int CH = BC / 4, PER = THREADS / CH;
    int r = threadIdx.x / CH, cc = (threadIdx.x % CH) * 4;
    const float *src = g + (size_t)(r0 + r) * C + c0 + cc;
    float *dst = s + r * LD + cc;
    size_t step = (size_t)PER * C;
#pragma unroll
    for (int j = 0; j < (BR + PER - 1) / PER; j++)
        if (BR % PER == 0 || r + j * PER < BR)
            cp16(dst + j * PER * LD, src + j * step, 16);
}

/* One stage: A's BM x BK tile and B's BK x BN tile at k0, by the fast
 * path where the block and the k step lie inside the matrices. */
__device__ __forceinline__ void load_stage(float *As, float *Bs, const float *A, const float *B,
                                           int M, int N, int K, int bm, int bn, int k0, bool va,
                                           bool vb, bool inside)
{
    if (inside && k0 + BK <= K) {
        load_tile_inside<BM, BK, AST>(As, A, K, bm, k0);
        load_tile_inside<BK, BN, BN>(Bs, B, N, k0, bn);
    } else {
        load_tile<BM, BK, AST>(As, A, M, K, bm, k0, va);
        load_tile<BK, BN, BN>(Bs, B, K, N, k0, bn, vb);
    }
}

__device__ __forceinline__ float lane_of(float4 v, int k)
{
    return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

/* One row of the thread's tile: row[0, TN) += av b (TN / 4 float4). */
__device__ __forceinline__ void fma_row(float av, const float4 *b, float *row)
{
#pragma unroll
    for (int j = 0; j < TN / 4; j++) {
        row[4 * j + 0] = fmaf(av, b[j].x, row[4 * j + 0]);
        row[4 * j + 1] = fmaf(av, b[j].y, row[4 * j + 1]);
        row[4 * j + 2] = fmaf(av, b[j].z, row[4 * j + 2]);
        row[4 * j + 3] = fmaf(av, b[j].w, row[4 * j + 3]);
    }
}

/* One stage's BK steps of the thread's TM x TN outer products. */
__device__ __forceinline__ void compute_stage(const float *As, const float *Bs, int ar, int bc,
                                              float (*acc)[TN])
{
#pragma unroll
    for (int k4 = 0; k4 < BK; k4 += 4) {
        float4 a[TM];
#pragma unroll
        for (int i = 0; i < TM; i++)
            a[i] = *reinterpret_cast<const float4 *>(As + (ar + i * LY) * AST + k4);
#pragma unroll
        for (int k = 0; k < 4; k++) {
            float4 b[TN / 4];
#pragma unroll
            for (int j = 0; j < TN / 4; j++)
                b[j] = *reinterpret_cast<const float4 *>(Bs + (k4 + k) * BN + bc + j * 4 * LX);
#pragma unroll
            for (int i = 0; i < TM; i++)
                fma_row(lane_of(a[i], k), b, acc[i]);
        }
    }
}

/* AT=1: the thread's 16-byte chunks of A's BM x BK tile at k0 into
 * registers (zeros past the edges).  Chunk c is row c / (BK / 4), columns
 * 4 (c % (BK / 4)) on: a thread's chunks keep their columns and lie PER
 * rows apart, and a warp reads whole 32-byte sectors. */
#define ACH (BK / 4)
#define A_PER (THREADS / ACH)
#define A_REGS ((BM + A_PER - 1) / A_PER)
__device__ __forceinline__ void load_a_regs(float4 *ra, const float *A, int M, int K, int bm,
                                            int k0, bool va, bool fast)
{
    int r = threadIdx.x / ACH, cc = (threadIdx.x % ACH) * 4, gc = k0 + cc;
#pragma unroll
    for (int j = 0; j < A_REGS; j++) {
        int gr = bm + r + j * A_PER;
        const float *g = A + (size_t)gr * K + gc;
        if (BM % A_PER != 0 && r + j * A_PER >= BM)
            continue;
        if (fast || (va && gr < M && gc + 3 < K)) {
            ra[j] = *reinterpret_cast<const float4 *>(g);
        } else {
            float v[4];
#pragma unroll
            for (int e = 0; e < 4; e++)
                v[e] = gr < M && gc + e < K ? g[e] : 0.0f;
            ra[j] = make_float4(v[0], v[1], v[2], v[3]);
        }
    }
}

/* ... and from registers into the transposed tile As[k][m]. */
__device__ __forceinline__ void store_a_regs(float *As, const float4 *ra)
{
    int r = threadIdx.x / ACH, cc = (threadIdx.x % ACH) * 4;
    float *d = As + cc * AST + r;
#pragma unroll
    for (int j = 0; j < A_REGS; j++) {
        if (BM % A_PER != 0 && r + j * A_PER >= BM)
            continue;
        d[j * A_PER] = ra[j].x;
        d[j * A_PER + AST] = ra[j].y;
        d[j * A_PER + 2 * AST] = ra[j].z;
        d[j * A_PER + 3 * AST] = ra[j].w;
    }
}

/* B's BK x BN tile at k0 by cp.async (the fast path inside the matrix). */
__device__ __forceinline__ void load_b(float *Bs, const float *B, int N, int K, int bn, int k0,
                                       bool vb, bool fast)
{
    if (fast)
        load_tile_inside<BK, BN, BN>(Bs, B, N, k0, bn);
    else
        load_tile<BK, BN, BN>(Bs, B, K, N, k0, bn, vb);
}

/* AT=1: the fragments of k step k: TM / 4 float4 of A, TN / 4 of B. */
__device__ __forceinline__ void load_frag(float4 *fa, float4 *fb, const float *As,
                                          const float *Bs, int k, int ar, int bc)
{
#pragma unroll
    for (int i = 0; i < TM / 4; i++)
        fa[i] = *reinterpret_cast<const float4 *>(As + k * AST + ar + i * 4 * LY);
#pragma unroll
    for (int j = 0; j < TN / 4; j++)
        fb[j] = *reinterpret_cast<const float4 *>(Bs + k * BN + bc + j * 4 * LX);
}

/* AT=1: one k step's TM x TN outer product. */
__device__ __forceinline__ void fma_step(const float4 *fa, const float4 *fb, float (*acc)[TN])
{
#pragma unroll
    for (int i = 0; i < TM; i++)
        fma_row(lane_of(fa[i / 4], i % 4), fb, acc[i]);
}

/* AT=1's main loop over k-tiles [t0, t1).  All STAGES slots hold tiles:
 * the barrier sits in the last k step of tile t, where every thread has
 * tile t's fragments in registers, so tile t + STAGES may overwrite its
 * slot at once, and tile t + 1's first fragments load while that step
 * multiplies. */
__device__ __forceinline__ void mainloop_t(float *As, float *Bs, const float *A, const float *B,
                                           int M, int N, int K, int bm, int bn, int ar, int bc,
                                           bool inside, int t0, int t1, float (*acc)[TN])
{
    bool va = K % 4 == 0, vb = N % 4 == 0;
    int tiles = t1 - t0, k0 = t0 * BK;
    float4 ra[A_REGS], fa[2][TM / 4], fb[2][TN / 4];
    load_a_regs(ra, A, M, K, bm, k0, va, inside && k0 + BK <= K);
    store_a_regs(As, ra);
#pragma unroll
    for (int s = 0; s < STAGES; s++) {
        int kb = k0 + s * BK;
        if (s < tiles)
            load_b(Bs + s * B_FLOATS, B, N, K, bn, kb, vb, inside && kb + BK <= K);
        cp_commit();
    }
    if (tiles > 1)
        load_a_regs(ra, A, M, K, bm, k0 + BK, va, inside && k0 + 2 * BK <= K);
    cp_wait<STAGES - 1>();
    __syncthreads();
    int slot = 0;
    load_frag(fa[0], fb[0], As, Bs, 0, ar, bc);
    for (int t = 0; t < tiles; t++) {
#pragma unroll
        for (int k = 0; k < BK; k++) {
            if (k == BK - 1) {
                int next = slot + 1 == STAGES ? 0 : slot + 1;
                if (t + 1 < tiles)
                    store_a_regs(As + next * A_FLOATS, ra);
                cp_wait<STAGES - 2>();
                __syncthreads(); /* tile t + 1 is in; tile t's slot is free */
                int kb = k0 + (t + STAGES) * BK, ka = k0 + (t + 2) * BK;
                if (t + STAGES < tiles)
                    load_b(Bs + slot * B_FLOATS, B, N, K, bn, kb, vb, inside && kb + BK <= K);
                cp_commit();
                if (t + 2 < tiles)
                    load_a_regs(ra, A, M, K, bm, ka, va, inside && ka + BK <= K);
                slot = next;
            }
            load_frag(fa[(k + 1) % 2], fb[(k + 1) % 2], As + slot * A_FLOATS,
                      Bs + slot * B_FLOATS, (k + 1) % BK, ar, bc);
            fma_step(fa[k % 2], fb[k % 2], acc);
        }
    }
}

/* AT=0's main loop over k-tiles [t0, t1): STAGES - 1 tiles in flight
 * while one multiplies. */
__device__ __forceinline__ void mainloop(float *As, float *Bs, const float *A, const float *B,
                                         int M, int N, int K, int bm, int bn, int ar, int bc,
                                         bool inside, int t0, int t1, float (*acc)[TN])
{
    bool va = K % 4 == 0, vb = N % 4 == 0;
    int tiles = t1 - t0, k0 = t0 * BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < tiles)
            load_stage(As + s * A_FLOATS, Bs + s * B_FLOATS, A, B, M, N, K, bm, bn,
                       k0 + s * BK, va, vb, inside);
        cp_commit();
    }
    for (int t = 0; t < tiles; t++) {
        cp_wait<STAGES - 2>();
        __syncthreads(); /* tile t is in; every thread is done with tile t - 1 */
        int next = t + STAGES - 1, s = next % STAGES;
        if (next < tiles)
            load_stage(As + s * A_FLOATS, Bs + s * B_FLOATS, A, B, M, N, K, bm, bn,
                       k0 + next * BK, va, vb, inside);
        cp_commit();
        compute_stage(As + (t % STAGES) * A_FLOATS, Bs + (t % STAGES) * B_FLOATS, ar, bc, acc);
    }
}

/* The register tile to C: float4 stores inside the matrix, scalars at its
 * edges.  Row i of the tile is r0 + i LY (AT=0) or r0 + (i / 4) 4 LY +
 * i % 4 (AT=1). */
__device__ __forceinline__ void store_tile(float *C, int M, int N, int r0, int c0,
                                           float (*acc)[TN])
{
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int r = r0 + (AT ? i / 4 * 4 * LY + i % 4 : i * LY);
        if (r >= M)
            continue;
#pragma unroll
        for (int j = 0; j < TN / 4; j++) {
            int c = c0 + j * 4 * LX;
            float *p = C + (size_t)r * N + c;
            if (c + 3 < N && N % 4 == 0) {
                *reinterpret_cast<float4 *>(p) = make_float4(acc[i][4 * j], acc[i][4 * j + 1],
                                                             acc[i][4 * j + 2], acc[i][4 * j + 3]);
            } else {
#pragma unroll
                for (int e = 0; e < 4; e++)
                    if (c + e < N)
                        p[e] = acc[i][4 * j + e];
            }
        }
    }
}

/* The tile of C at index id of the grouped raster (GM block rows sweep
 * the columns together, for L2 reuse): its first row and column. */
__device__ __forceinline__ void tile_at(int id, int M, int N, int *bm, int *bn)
{
    int gx = (N + BN - 1) / BN, rows = (M + BM - 1) / BM, first = id / (GM * gx) * GM;
    int group = rows - first < GM ? rows - first : GM;
    *bm = (first + (id % (GM * gx)) % group) * BM;
    *bn = (id % (GM * gx)) / group * BN;
}

__device__ __forceinline__ void zero_tile(float (*acc)[TN])
{
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;
}

/* The thread's sums over k-tiles [t0, t1) of the tile at (bm, bn). */
__device__ __forceinline__ void tile_sums(float *smem, const float *A, const float *B, int M,
                                          int N, int K, int bm, int bn, int ar, int bc, int t0,
                                          int t1, float (*acc)[TN])
{
    float *As = smem, *Bs = smem + STAGES * A_FLOATS;
    bool inside = K % 4 == 0 && N % 4 == 0 && bm + BM <= M && bn + BN <= N;
    zero_tile(acc);
#if AT
    mainloop_t(As, Bs, A, B, M, N, K, bm, bn, ar, bc, inside, t0, t1, acc);
#else
    mainloop(As, Bs, A, B, M, N, K, bm, bn, ar, bc, inside, t0, t1, acc);
#endif
}

#if SK
/* A block's part of a shared tile: the thread's TM x TN sums, THREADS
 * floats apart in its slot of W. */
__device__ __forceinline__ void add_part(const float *part, float (*acc)[TN])
{
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] += __ldcg(part + (i * TN + j) * THREADS + threadIdx.x);
}

/* Writes the block's part to its slot, then counts the block in the
 * tile's counter, which the tile's `others` other blocks count in too.
 * True for the block that counts last: every other part was written
 * before its block counted, so the caller may add them; that block also
 * sets the counter back to 0 for the next launch. */
__device__ __forceinline__ bool count_in(float *slot, int *counter, int others,
                                         float (*acc)[TN])
{
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            __stcg(slot + (i * TN + j) * THREADS + threadIdx.x, acc[i][j]);
    __threadfence();
    __syncthreads(); /* every thread's part is out before the block counts */
    if (!__syncthreads_or(threadIdx.x == 0 && atomicAdd(counter, 1) == others))
        return false;
    if (threadIdx.x == 0)
        *counter = 0; /* every block of the tile has counted: ready for the next launch */
    __threadfence();
    return true;
}
#endif

#if SK && TAIL
/* Tail split (TAIL=1): the tiles that fill whole waves of SK get a block
 * each; each of the r tiles left is cut at k-tile b into two blocks, the r
 * long pieces first, so that the SK - r multiprocessors the last wave
 * leaves idle run the short ones, q = ceil(r / (SK - r)) each, while the
 * long ones run: b = ceil(q kt / (q + 1)), q at most kt - 1.  The last
 * wave then lasts b k-tiles instead of kt (4096^3 in 128 x 256 tiles on
 * 132: 114 of 128), and every block runs one piece through one call of
 * the main loop.  Piece p of tail tile x has slot 2 x + p of W. */
__device__ __forceinline__ void tail_split(float *smem, const float *A, const float *B, float *C,
                                           float *W, int *Wc, int M, int N, int K, int ar,
                                           int bc, float (*acc)[TN])
{
    int tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN), kt = (K + BK - 1) / BK;
    int r = tiles % SK, whole = tiles - r, id = (int)blockIdx.x, t0 = 0, t1 = kt, p = -1;
    if (id >= whole && kt >= 2) {
        int idle = SK - r, q = (r + idle - 1) / idle, b;
        q = q < kt - 1 ? q : kt - 1;
        b = (q * kt + q) / (q + 1); /* ceil(q kt / (q + 1)) */
        p = (id - whole) / r;
        id -= p * r;
        t0 = p ? b : 0;
        t1 = p ? kt : b;
    }
    int bm, bn;
    tile_at(id, M, N, &bm, &bn);
    tile_sums(smem, A, B, M, N, K, bm, bn, ar, bc, t0, t1, acc);
    if (p >= 0) {
        float *W0 = W + (size_t)(2 * (id - whole)) * (BM * BN);
        if (!count_in(W0 + p * (BM * BN), Wc + id - whole, 1, acc))
            return;
        add_part(W0 + (1 - p) * (BM * BN), acc);
    }
    store_tile(C, M, N, bm + ar, bn + bc, acc);
}
#elif SK
/* Block b's range of the I shared k-tiles is [b I / G, (b + 1) I / G),
 * G <= I blocks; range_owner is the block whose range holds k-tile i. */
__device__ __forceinline__ long long range_start(int b, long long I, int G)
{
    return b * I / G;
}

__device__ __forceinline__ int range_owner(long long i, long long I, int G)
{
    return (int)(((i + 1) * G + I - 1) / I - 1);
}

/* Block b's slot of W for shared tile x: its first range's (2 b) or its
 * last range's (2 b + 1); a slot is the TM x TN sums of each thread,
 * THREADS floats apart. */
__device__ __forceinline__ float *slot_of(float *W, int b, int x, int kt, long long I, int G)
{
    bool first = range_start(b, I, G) / kt == x;
    return W + (size_t)(2 * b + (first ? 0 : 1)) * (BM * BN);
}

/* acc holds block b's part of shared tile x: true when b is the last of
 * the tile's blocks to finish its part, the others' parts then added to
 * acc; false when another block will store the tile. */
__device__ __forceinline__ bool gather(float *W, int *Wc, int b, int x, int kt, long long I,
                                       int G, float (*acc)[TN])
{
    int first = range_owner((long long)x * kt, I, G);
    int last = range_owner((long long)x * kt + kt - 1, I, G);
    if (!count_in(slot_of(W, b, x, kt, I, G), Wc + x, last - first, acc))
        return false;
    for (int c = first; c <= last; c++)
        if (c != b)
            add_part(slot_of(W, c, x, kt, I, G), acc);
    return true;
}

/* Stream K: the block's pieces (its tile, or the tiles its range of
 * shared k-tiles touches, as k-tiles [t0, t1) of tile id), in one loop
 * with one call of the main loop: a second, fully unrolled copy doubles
 * the code, which at BK=32 cost more in instruction fetch than stream K
 * gains (bench/gpu/logs/sgemm-2026-11-28.txt). */
__device__ __forceinline__ void stream_k(float *smem, const float *A, const float *B, float *C,
                                         float *W, int *Wc, int M, int N, int K, int ar, int bc,
                                         float (*acc)[TN])
{
    int tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN), kt = (K + BK - 1) / BK, bm, bn;
    if (kt == 0) { /* K = 0: C = 0, a block a tile */
        zero_tile(acc);
        tile_at(blockIdx.x, M, N, &bm, &bn);
        store_tile(C, M, N, bm + ar, bn + bc, acc);
        return;
    }
    int whole = tiles % SK == 0 ? tiles : tiles / SK * SK;
    long long I = (long long)(tiles - whole) * kt, i, end;
    int S = I < SK ? (int)I : SK, s = (int)blockIdx.x - whole;
    if (s < 0) {
        i = (long long)blockIdx.x * kt;
        end = i + kt;
    } else {
        i = (long long)whole * kt + range_start(s, I, S);
        end = (long long)whole * kt + range_start(s + 1, I, S);
    }
    while (i < end) {
        int id = (int)(i / kt), t0 = (int)(i - (long long)id * kt);
        int t1 = end - i < kt - t0 ? t0 + (int)(end - i) : kt;
        tile_at(id, M, N, &bm, &bn);
        tile_sums(smem, A, B, M, N, K, bm, bn, ar, bc, t0, t1, acc);
        if ((t0 == 0 && t1 == kt) || gather(W, Wc, s, id - whole, kt, I, S, acc))
            store_tile(C, M, N, bm + ar, bn + bc, acc);
        __syncthreads(); /* the next piece's loads may overwrite the stages */
        i += t1 - t0;
    }
}
#endif

#if NREG
#define BOUNDS __maxnreg__(NREG) /* cannot be given with __launch_bounds__ */
#else
#define BOUNDS __launch_bounds__(THREADS, MINB)
#endif

extern "C" __global__ void BOUNDS
gemm(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
     float *__restrict__ C, float *__restrict__ W, int *__restrict__ Wc)
{
    extern __shared__ __align__(16) float smem[];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int ar = (warp / WARPS_N) * WM + (lane / LX) * (AT ? 4 : 1);
    int bc = (warp % WARPS_N) * WN + (lane % LX) * 4;
    float acc[TM][TN];
#if SK && TAIL
    tail_split(smem, A, B, C, W, Wc, M, N, K, ar, bc, acc);
#elif SK
    stream_k(smem, A, B, C, W, Wc, M, N, K, ar, bc, acc);
#else
    int bm, bn;
    tile_at(blockIdx.y * gridDim.x + blockIdx.x, M, N, &bm, &bn);
    tile_sums(smem, A, B, M, N, K, bm, bn, ar, bc, 0, (K + BK - 1) / BK, acc);
    store_tile(C, M, N, bm + ar, bn + bc, acc);
    (void)W;
    (void)Wc;
#endif
}
